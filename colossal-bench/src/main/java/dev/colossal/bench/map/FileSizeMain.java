package dev.colossal.bench.map;

import dev.colossal.bench.Dirs;
import dev.colossal.codec.Codec;
import dev.colossal.codec.Codecs;
import dev.colossal.map.BytesMap;
import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import net.openhft.chronicle.map.ChronicleMap;
import org.lmdbjava.Dbi;
import org.lmdbjava.DbiFlags;
import org.lmdbjava.Env;
import org.lmdbjava.EnvFlags;
import org.mapdb.DB;
import org.mapdb.DBMaker;
import org.mapdb.Serializer;

/**
 * How much disk each store takes for the same entries: seed 001's users ({@link UsersMain#user},
 * encoded by our record codec, ~66 bytes) under 4-byte int ids, written into one store in a JVM of
 * its own, then the store closed and its files measured. The file-overhead target of the 15M-user
 * row (15% over the raw bytes) is put against what the peers need for the same bytes. Prints one
 * line of {@code key=value} pairs: the bytes the files take on disk ({@code du}: allocated blocks;
 * LMDB's file is sparse up to its map size), their apparent size, and the raw key and value bytes.
 *
 * <p>Usage: {@code FileSizeMain colossal|chronicle|mapdb|lmdb USERS}
 */
public final class FileSizeMain {

    private FileSizeMain() {}

    /**
     * @param args the store and the number of users
     * @throws Exception if a store fails
     */
    public static void main(String[] args) throws Exception {
        String store = args[0];
        int users = Integer.parseInt(args[1]);
        Codec<UsersMain.User> codec = Codecs.of(UsersMain.User.class);
        byte[][] values = new byte[users][];
        long raw = 0;
        for (int id = 0; id < users; id++) {
            UsersMain.User user = UsersMain.user(id, 0);
            values[id] = new byte[Math.toIntExact(codec.encodedSize(user))];
            codec.encode(user, MemorySegment.ofArray(values[id]), 0);
            raw += Integer.BYTES + values[id].length;
        }
        int average = (int) Math.round((double) (raw - (long) Integer.BYTES * users) / users);
        Path dir = Files.createTempDirectory("colossal-bench-files");
        try {
            switch (store) {
                case "colossal" -> colossal(dir, values);
                case "chronicle" -> chronicle(dir, values, average);
                case "mapdb" -> mapdb(dir, values);
                case "lmdb" -> lmdb(dir, values, average);
                default -> throw new IllegalArgumentException("store=" + store);
            }
            System.out.printf("allocatedBytes=%d fileBytes=%d rawBytes=%d averageValue=%d%n", Dirs.allocatedBytes(dir),
                    Dirs.apparentBytes(dir), raw, average);
        } finally {
            Dirs.deleteTree(dir);
        }
    }

    private static byte[] key(int id) {
        return ByteBuffer.allocate(Integer.BYTES).order(ByteOrder.nativeOrder()).putInt(0, id).array();
    }

    /** Ours as users get it: no size hint, checksums on (the default). */
    private static void colossal(Path dir, byte[][] values) throws IOException {
        try (BytesMap map = BytesMap.open(dir.resolve("colossal.map"))) {
            for (int id = 0; id < values.length; id++) {
                map.put(key(id), values[id]);
            }
        }
    }

    /** Chronicle Map sized exactly, as it must be: the number of entries and the average value. */
    private static void chronicle(Path dir, byte[][] values, int average) throws IOException {
        try (ChronicleMap<Integer, byte[]> map = ChronicleMap.of(Integer.class, byte[].class).name("files")
                .entries(values.length).averageValue(new byte[average])
                .createPersistedTo(dir.resolve("chronicle.map").toFile())) {
            for (int id = 0; id < values.length; id++) {
                map.put(id, values[id]);
            }
        }
    }

    /** MapDB's hash map in a memory-mapped file. */
    private static void mapdb(Path dir, byte[][] values) {
        DB db = DBMaker.fileDB(dir.resolve("mapdb.db").toFile()).fileMmapEnable().make();
        try {
            var map = db.hashMap("files", Serializer.INTEGER, Serializer.BYTE_ARRAY).createOrOpen();
            for (int id = 0; id < values.length; id++) {
                map.put(id, values[id]);
            }
        } finally {
            db.close();
        }
    }

    /** LMDB, one write transaction per 10,000 puts (its B-tree in order of the native-order key bytes). */
    private static void lmdb(Path dir, byte[][] values, int average) throws IOException {
        Path d = Files.createDirectories(dir.resolve("lmdb"));
        ByteBuffer key = ByteBuffer.allocateDirect(Integer.BYTES).order(ByteOrder.nativeOrder());
        ByteBuffer value = ByteBuffer.allocateDirect(4096);
        try (Env<ByteBuffer> env = Env.create().setMapSize(Math.max(1L << 30, values.length * (3L * average + 300)))
                .setMaxDbs(1).open(d.toFile(), EnvFlags.MDB_NOSYNC)) {
            Dbi<ByteBuffer> db = env.openDbi("files", DbiFlags.MDB_CREATE);
            for (int from = 0; from < values.length; from += 10_000) {
                try (var txn = env.txnWrite()) {
                    for (int id = from; id < Math.min(values.length, from + 10_000); id++) {
                        key.clear();
                        key.putInt(0, id);
                        value.clear();
                        value.put(values[id]).flip();
                        db.put(txn, key, value);
                    }
                    txn.commit();
                }
            }
            env.sync(true);
        }
    }
}
