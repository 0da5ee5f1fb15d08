package dev.colossal.server;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;

/**
 * Where the replication stream stood when the data directory's last server stopped cleanly: the
 * stream's id and the number of its last byte the data holds (as a replica, its master's stream;
 * as a master, its own). Redis keeps the same two in its RDB file, so that a restarted replica
 * asks its master {@code PSYNC replid offset+1} and is sent only what it missed.
 *
 * <p>The data and the offset must agree to the byte, or a resumed replica loses or doubles writes.
 * So the file is written only by a clean stop, once the maps are forced to the device and nothing
 * applies commands any more, and it is taken away ({@link #take}) by whatever opens the directory
 * next, before anything can write: a server killed after that start leaves none, and its
 * successor syncs in full. Its one line, in the file {@value #FILE_NAME}:
 *
 * <pre>
 *   replid SP offset SP db LF        e.g. "8c1f...40 hex digits...e2 1234 3\n"
 * </pre>
 *
 * @param replid   the stream's id, 40 hex digits
 * @param offset   the number of the stream's last byte the data holds (0: none yet)
 * @param streamDb the database the stream's next commands run in: a master sends SELECT only when
 *                 its writes change database, so a resumed replica must start where it left off
 */
record ReplicationCheckpoint(String replid, long offset, int streamDb) {

    static final String FILE_NAME = "replication";

    /**
     * Writes the checkpoint: to a temporary file forced to the device, moved over the name at once
     * and the directory forced, so a crash leaves the whole line or none.
     */
    void save(Path dir) throws IOException {
        Path tmp = dir.resolve(FILE_NAME + ".tmp");
        byte[] line = (replid + " " + offset + " " + streamDb + "\n").getBytes(StandardCharsets.US_ASCII);
        try (FileChannel ch = FileChannel.open(tmp, StandardOpenOption.CREATE, StandardOpenOption.WRITE,
                StandardOpenOption.TRUNCATE_EXISTING)) {
            ch.write(ByteBuffer.wrap(line));
            ch.force(true);
        }
        Files.move(tmp, dir.resolve(FILE_NAME), StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
        DatabaseFiles.forceDirectory(dir);
    }

    /**
     * Reads the checkpoint the last clean stop left, and removes it (durably) before returning it,
     * so that no later start trusts it once this one has begun to change the data.
     *
     * @return the checkpoint, or null if there is none or it is not one (said on stderr)
     */
    static ReplicationCheckpoint take(Path dir) throws IOException {
        Path file = dir.resolve(FILE_NAME);
        String text;
        try {
            text = Files.readString(file, StandardCharsets.US_ASCII);
        } catch (NoSuchFileException e) {
            return null;
        }
        Files.delete(file);
        Files.deleteIfExists(dir.resolve(FILE_NAME + ".tmp"));
        DatabaseFiles.forceDirectory(dir);
        ReplicationCheckpoint cp = parse(text);
        if (cp == null) {
            System.err.println("colossal: " + file + " is not a replication checkpoint ('" + text.strip()
                    + "'): passed over, a replica of this server or this server's master link syncs in full");
        }
        return cp;
    }

    /** @return the checkpoint {@code text} holds, or null if it is not one line of an id, an offset and a database */
    static ReplicationCheckpoint parse(String text) {
        if (!text.endsWith("\n")) {
            return null;
        }
        String[] words = text.substring(0, text.length() - 1).split(" ", -1);
        if (words.length != 3 || !words[0].matches("[0-9a-f]{40}") || !words[1].matches("[0-9]{1,18}")
                || !words[2].matches("[0-9]{1,5}")) {
            return null;
        }
        return new ReplicationCheckpoint(words[0], Long.parseLong(words[1]), Integer.parseInt(words[2]));
    }
}
