package dev.colossal.server;

import dev.colossal.rdb.DumpPayload;
import dev.colossal.rdb.RdbStreams;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.List;

/**
 * DEBUG DIGEST and DIGEST-VALUE: a SHA-1 signature of the data, built as Redis 7.0 documents and
 * builds its own, so that equal data gives the same 40 hex digits here and on a redis-server.
 * Two steps make every signature: <em>xor</em> a string in (its SHA-1 xored into the 20 bytes),
 * which is blind to order, and <em>mix</em> it in (xor, then the 20 bytes replaced by their
 * SHA-1), which is not. A value mixes in its type's number in Redis (4 bytes, big-endian: string
 * 0, list 1, set 2, sorted set 3, hash 4, stream 6), then a string's bytes or a list's elements in order, xors in a
 * set's members, and xors in one signature per hash field (field and value mixed) and per sorted
 * set member (member and its score's {@code %.17g} text mixed); a stream mixes in each entry's ID
 * ({@code ms.seq}) and its fields and values. A key with a TTL xors in {@code !!expire!!}. The
 * dataset's signature mixes in each database's number (4 bytes, big-endian) before its keys, and
 * xors in each key's signature (its name mixed, then its value's); an empty dataset's is all zeros.
 * Values are read through their DUMP payload ({@link DumpPayload}), one reader for every type.
 */
final class DatasetDigest {

    private static final byte[] EXPIRE = "!!expire!!".getBytes(StandardCharsets.US_ASCII);
    private static final int SIZE = 20;

    private final ServerContext ctx;
    private final DumpCommands dumps;

    DatasetDigest(ServerContext ctx, DumpCommands dumps) {
        this.ctx = ctx;
        this.dumps = dumps;
    }

    /**
     * @return DEBUG DIGEST's 40 hex digits for every database: the keys taken a scan step at a
     *     time (their signatures are xored, so their order does not matter), never all in the heap
     */
    String dataset() {
        byte[] all = new byte[SIZE];
        for (int db = 0; db < ctx.dbs.count(); db++) {
            KeyValueStore store = ctx.dbs.store(db);
            boolean first = true;
            long cursor = 0;
            do {
                List<byte[]> keys = new java.util.ArrayList<>();
                Deadlines deadlines = new Deadlines();
                cursor = store.scanKeys(cursor, STEP, k -> true, (k, at) -> {
                    keys.add(k);
                    deadlines.add(at);
                });
                if (first && !keys.isEmpty()) {
                    mix(all, ByteBuffer.allocate(Integer.BYTES).putInt(db).array());
                    first = false;
                }
                for (int i = 0; i < keys.size(); i++) {
                    byte[] key = new byte[SIZE];
                    mix(key, keys.get(i));
                    if (value(store, keys.get(i), deadlines.at(i), key)) {
                        xor(all, key);
                    }
                }
            } while (cursor != 0);
        }
        return HexFormat.of().formatHex(all);
    }

    /** Keys a scan step of {@link #dataset} takes, about. */
    private static final int STEP = 1024;

    /** @return DEBUG DIGEST-VALUE's hex digits for {@code key} in {@code store}: all zeros if it has none */
    String value(KeyValueStore store, byte[] key) {
        byte[] d = new byte[SIZE];
        KeyValueStore.Entry e = store.get(key);
        if (e != null) {
            value(store, key, e.expireAtMillis(), d);
        }
        return HexFormat.of().formatHex(d);
    }

    /** Adds {@code key}'s value (and TTL) to {@code d}; false if the key went since it was listed. */
    private boolean value(KeyValueStore store, byte[] key, long deadline, byte[] d) {
        byte[] payload = dumps.payload(store, key);
        if (payload == null) {
            return false;
        }
        DumpPayload.Value v;
        try {
            v = DumpPayload.valueOf(payload);
        } catch (DumpPayload.RefusedException e) {
            throw new IllegalStateException("the DUMP payload of a stored value was refused: " + e.getMessage(), e);
        }
        mix(d, ByteBuffer.allocate(Integer.BYTES).putInt(redisType(v)).array());
        if (v.string() != null) {
            mix(d, v.string());
        } else if (v.list() != null) {
            v.list().forEach(element -> mix(d, element));
        } else if (v.set() != null) {
            v.set().forEach(member -> xor(d, member));
        } else if (v.hash() != null) {
            for (int i = 0; i + 1 < v.hash().size(); i += 2) {
                xor(d, pair(v.hash().get(i), v.hash().get(i + 1)));
            }
        } else if (v.zset() != null) {
            for (int i = 0; i < v.zset().members().size(); i++) {
                xor(d, pair(v.zset().members().get(i), ascii(ZScore.format(v.zset().scores()[i]))));
            }
        } else if (v.stream() != null) {
            for (RdbStreams.Entry entry : v.stream().entries()) {
                mix(d, ascii(Long.toUnsignedString(entry.ms()) + "." + Long.toUnsignedString(entry.seq())));
                for (byte[] part : entry.fields()) {
                    mix(d, part);
                }
            }
        }
        if (deadline != StoredValue.NO_EXPIRY) {
            xor(d, EXPIRE);
        }
        return true;
    }

    /** @return Redis's number of the value's type ({@code OBJ_STRING} 0 ... {@code OBJ_STREAM} 6) */
    private static int redisType(DumpPayload.Value v) {
        if (v.string() != null) {
            return 0;
        }
        if (v.list() != null) {
            return 1;
        }
        if (v.set() != null) {
            return 2;
        }
        return v.zset() != null ? 3 : v.hash() != null ? 4 : 6;
    }

    /** @return the signature of a field and its value (a member and its score): both mixed into zeros */
    private static byte[] pair(byte[] first, byte[] second) {
        byte[] d = new byte[SIZE];
        mix(d, first);
        mix(d, second);
        return d;
    }

    private static byte[] ascii(String s) {
        return s.getBytes(StandardCharsets.US_ASCII);
    }

    private static void xor(byte[] d, byte[] data) {
        byte[] h = sha1().digest(data);
        for (int i = 0; i < SIZE; i++) {
            d[i] ^= h[i];
        }
    }

    private static void mix(byte[] d, byte[] data) {
        xor(d, data);
        System.arraycopy(sha1().digest(d), 0, d, 0, SIZE);
    }

    private static MessageDigest sha1() {
        try {
            return MessageDigest.getInstance("SHA-1");
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("every JDK has SHA-1", e);
        }
    }
}
