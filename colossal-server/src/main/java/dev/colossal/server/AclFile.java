package dev.colossal.server;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The ACL file ({@code --aclfile}, {@code aclfile} in the settings file), in Redis's format: one
 * {@code user <name> <rules...>} line per user, as ACL LIST writes them, so a file Redis wrote
 * loads here and the other way round. Loaded at start and by ACL LOAD (all or nothing); written by
 * ACL SAVE to a temporary file that is forced to the device and then renamed over the old one, so
 * a crash leaves the old file or the new, never half of one.
 */
final class AclFile {

    private AclFile() {
    }

    /** A line of the file that is not a valid user. */
    static final class BadFile extends Exception {
        private static final long serialVersionUID = 1L;

        BadFile(String message) {
            super(message);
        }
    }

    /** @return each user's rules by name, in the file's order; the default user only if the file has it */
    static Map<String, AclRules> read(Path file) throws IOException, BadFile {
        Map<String, AclRules> users = new LinkedHashMap<>();
        List<String> lines = Files.readAllLines(file, StandardCharsets.ISO_8859_1);
        for (int i = 0; i < lines.size(); i++) {
            String line = lines.get(i).strip();
            if (line.isEmpty()) {
                continue;
            }
            String[] words = line.split("\\s+");
            String where = file + ":" + (i + 1) + ": ";
            if (!words[0].equals("user") || words.length < 2) {
                throw new BadFile(where + "line should start with user keyword");
            }
            if (users.containsKey(words[1])) {
                throw new BadFile(where + "Duplicate user '" + words[1] + "' found");
            }
            AclRules r = new AclRules();
            for (int w = 2; w < words.length; w++) {
                String why = r.apply(words[w].getBytes(StandardCharsets.ISO_8859_1));
                if (why != null) {
                    throw new BadFile(where + why + ". ");
                }
            }
            users.put(words[1], r);
        }
        return users;
    }

    /**
     * The users of a config file's {@code user} lines, as redis-server takes them when no ACL file is
     * set: each line defines a new user by its rules, but {@code default}, which already exists and is
     * reset first (so it is described with Redis's {@code sanitize-payload}, the reset's flag).
     *
     * @param lines each line's words after {@code user} (the name, then its rules), by where it is
     *              ({@code FILE:LINE}), in the file's order
     * @return each user's rules by name, in the lines' order
     * @throws BadFile naming the line of a rule refused, or of a user defined a second time
     */
    static Map<String, AclRules> fromConfig(java.util.SequencedMap<String, List<String>> lines) throws BadFile {
        Map<String, AclRules> users = new LinkedHashMap<>();
        for (Map.Entry<String, List<String>> line : lines.entrySet()) {
            String[] words = line.getValue().toArray(new String[0]);
            String where = line.getKey() + ": ";
            if (users.containsKey(words[0])) {
                throw new BadFile(where + "Error in user declaration '" + words[0] + "': Duplicate user found. A user"
                        + " can only be defined once in config files");
            }
            AclRules r = new AclRules();
            if (words[0].equals(AclUsers.DEFAULT)) {
                r.apply(Args.bytes("reset"));
            }
            for (int w = 1; w < words.length; w++) {
                String why = r.apply(words[w].getBytes(StandardCharsets.ISO_8859_1));
                if (why != null) {
                    throw new BadFile(where + "Error in user declaration '" + words[w] + "': " + why);
                }
            }
            users.put(words[0], r);
        }
        return users;
    }

    /** Writes every user's line, atomically: a temporary file beside {@code file}, forced, then renamed. */
    static void write(Path file, List<AclUser> users) throws IOException {
        List<String> lines = new ArrayList<>();
        for (AclUser u : users) {
            lines.add(AclDescription.line(u.name, u.rules));
        }
        Path tmp = file.resolveSibling(file.getFileName() + ".tmp");
        Files.write(tmp, lines, StandardCharsets.ISO_8859_1);
        try (FileChannel ch = FileChannel.open(tmp, StandardOpenOption.WRITE)) {
            ch.force(true);
        }
        Files.move(tmp, file, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
    }
}
