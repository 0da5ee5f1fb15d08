package dev.colossal.rdb;

import java.lang.foreign.MemorySegment;
import java.nio.charset.StandardCharsets;

/**
 * Reads an RDB file, the snapshot {@code redis-cli SAVE} writes, from RDB version 1 to 11 (Redis
 * 7.0 writes 10, 7.2 writes 11), and tells a {@link Visitor} of each key: string values and
 * hashes (types 4 and 16), sets (types 2, 11 and 20) and sorted sets ({@link RdbZSets}) whole, other
 * types only by name ({@link RdbValues} finds where they end).
 *
 * <pre>
 *  "REDIS" 4 ASCII digits (the version)
 *  then records, each starting with a byte:
 *    0xFA AUX            name string, value string (redis-ver, ctime, used-mem, ...)
 *    0xFB RESIZEDB       keys length, keys with a TTL length (sizing hints)
 *    0xFE SELECTDB       db length: the keys after it are that database's (database 0 before any)
 *    0xFC EXPIRETIME_MS  8 bytes, little-endian Unix ms: the next key's deadline
 *    0xFD EXPIRETIME     4 bytes, little-endian Unix seconds: the same (old versions)
 *    0xF8 IDLE           length: the next key's LRU idle time (ignored)
 *    0xF9 FREQ           1 byte: the next key's LFU counter (ignored)
 *    0xF7 MODULE_AUX     module id, when-opcode, when (lengths), then module items
 *    0xF5 FUNCTION       a string: a library of FUNCTION LOAD (7.0 GA on)
 *    0xF6 FUNCTION       a function of 7.0's release candidates: refused
 *    0..21               a value type: key string, then the value
 *    0xFF EOF            then, from version 5, 8 bytes: CRC-64 ({@link Crc64}) of every byte before,
 *                        little-endian; 0 when Redis ran with rdbchecksum no
 * </pre>
 * Strings and lengths are encoded as {@link RdbInput} draws.
 */
public final class RdbReader {

    /** The newest RDB version read: Redis 7.2's. */
    public static final int NEWEST_VERSION = 11;
    private static final int FIRST_CHECKSUMMED_VERSION = 5;
    private static final int MODULE_AUX = 0xF7;
    private static final int IDLE = 0xF8;
    private static final int FREQ = 0xF9;
    private static final int AUX = 0xFA;
    private static final int RESIZEDB = 0xFB;
    private static final int EXPIRETIME_MS = 0xFC;
    private static final int EXPIRETIME = 0xFD;
    private static final int SELECTDB = 0xFE;
    private static final int EOF = 0xFF;
    private static final int FUNCTION = 0xF5;
    private static final int FUNCTION_PRE_GA = 0xF6;
    private static final byte[] MAGIC = "REDIS".getBytes(StandardCharsets.US_ASCII);
    private static final long NO_EXPIRY = 0;

    /** What the reader tells of the file, in file order. */
    public interface Visitor {

        /** An AUX field: {@code redis-ver}, {@code ctime} and the like. */
        default void aux(String name, String value) {}

        /**
         * A key holding a string.
         *
         * @param db             its database
         * @param key            the key
         * @param value          the value, or null when reading {@link Mode#CHECK}
         * @param expireAtMillis its deadline in Unix milliseconds, 0 for none
         * @param offset         where its record ends, for progress
         */
        void string(int db, byte[] key, byte[] value, long expireAtMillis, long offset) throws RdbFormatException;

        /**
         * A key of another type, passed over.
         *
         * @param type           its Redis type: list, set, zset, hash, stream, module
         * @param expireAtMillis its deadline in Unix milliseconds, 0 for none
         * @param offset         where its record ends, for progress
         */
        void other(int db, byte[] key, String type, long expireAtMillis, long offset);

        /**
         * A key holding a hash in any encoding (RDB types 4 and 16 of Redis 7, 9 and 13 of older ones), read
         * whole in both modes so that a damaged one stops the {@link Mode#CHECK} pass; a visitor
         * that does not take hashes passes it to {@link #other}.
         *
         * @param fieldsAndValues its fields and values, alternately, in the dump's order
         * @param expireAtMillis  its deadline in Unix milliseconds, 0 for none
         * @param offset          where its record ends, for progress
         */
        default void hash(int db, byte[] key, java.util.List<byte[]> fieldsAndValues, long expireAtMillis, long offset)
                throws RdbFormatException {
            other(db, key, "hash", expireAtMillis, offset);
        }

        /**
         * A key holding a set (RDB type 2, an intset, type 11, or Redis 7.2's listpack, type 20),
         * read whole in both modes as a hash is; a visitor that does not take sets passes it to {@link #other}.
         *
         * @param members        its members, distinct, in the dump's order
         * @param expireAtMillis its deadline in Unix milliseconds, 0 for none
         * @param offset         where its record ends, for progress
         */
        default void set(int db, byte[] key, java.util.List<byte[]> members, long expireAtMillis, long offset)
                throws RdbFormatException {
            other(db, key, "set", expireAtMillis, offset);
        }

        /**
         * A key holding a list (RDB types 1, 10, 14 or 18), read whole in both modes; a visitor
         * that does not take lists passes it to {@link #other}.
         *
         * @param elements       its elements, head first
         * @param expireAtMillis its deadline in Unix milliseconds, 0 for none
         * @param offset         where its record ends, for progress
         */
        default void list(int db, byte[] key, java.util.List<byte[]> elements, long expireAtMillis, long offset)
                throws RdbFormatException {
            other(db, key, "list", expireAtMillis, offset);
        }

        /**
         * A key holding a sorted set (RDB types 3, 5, 12 or 17), read whole in both modes; a
         * visitor that does not take sorted sets passes it to {@link #other}.
         *
         * @param zset           its members and scores
         * @param expireAtMillis its deadline in Unix milliseconds, 0 for none
         * @param offset         where its record ends, for progress
         */
        default void zset(int db, byte[] key, RdbZSets.ZSet zset, long expireAtMillis, long offset)
                throws RdbFormatException {
            other(db, key, "zset", expireAtMillis, offset);
        }

        /**
         * A key holding a stream (RDB types 15, 19 or 21), read whole in both modes; a visitor that
         * does not take streams passes it to {@link #other}.
         *
         * @param stream         its entries, counters and how many consumer groups it has (passed over)
         * @param expireAtMillis its deadline in Unix milliseconds, 0 for none
         * @param offset         where its record ends, for progress
         */
        default void stream(int db, byte[] key, RdbStreams.Stream stream, long expireAtMillis, long offset)
                throws RdbFormatException {
            other(db, key, "stream", expireAtMillis, offset);
        }

        /**
         * A library of functions (FUNCTION LOAD): its code, metadata line first.
         *
         * @throws RdbFormatException if the visitor refuses it
         */
        default void function(byte[] code) throws RdbFormatException {}
    }

    /** How much of the file a pass reads. */
    public enum Mode {
        /** Every record and the trailing CRC-64, passing over string values unread. */
        CHECK,
        /** Every record with its string values decompressed; the CRC-64 is left to a {@link #CHECK} before. */
        LOAD
    }

    /** What the file was, once read to its end. */
    public record Result(int version, ChecksumState checksum, long eofOffset) {}

    /** Whether the file's CRC-64 was compared. */
    public enum ChecksumState {
        /** Compared and equal. */
        VERIFIED,
        /** Written as 0: Redis ran with {@code rdbchecksum no}. */
        OFF,
        /** Not compared: the version has none, or the pass was {@link Mode#LOAD}. */
        NOT_CHECKED
    }

    private RdbReader() {}

    /**
     * Reads the whole file.
     *
     * @param file    the file's bytes
     * @param mode    whether values are read, or the checksum
     * @param visitor told of each key
     * @return the version and checksum state
     * @throws RdbFormatException if the file is damaged, cut short, not an RDB file, or holds what
     *     cannot be passed over; no key after the offset it names was told
     */
    public static Result read(MemorySegment file, Mode mode, Visitor visitor) throws RdbFormatException {
        RdbInput in = new RdbInput(file);
        int version = header(in);
        int db = 0;
        long expireAt = NO_EXPIRY;
        while (true) {
            long at = in.offset();
            int op = in.u8();
            switch (op) {
                case EXPIRETIME_MS -> expireAt = in.int64le();
                case EXPIRETIME -> expireAt = (in.int32le() & 0xffffffffL) * 1000;
                case IDLE -> in.length();
                case FREQ -> in.u8();
                case AUX -> visitor.aux(text(in.string()), text(in.string()));
                case RESIZEDB -> {
                    in.length();
                    in.length();
                }
                case SELECTDB -> {
                    long n = in.length();
                    if (n > Integer.MAX_VALUE) {
                        throw RdbInput.damaged(at, "database number " + n + " is larger than any Redis has");
                    }
                    db = (int) n;
                }
                case MODULE_AUX -> {
                    in.length();
                    in.length();
                    in.length();
                    RdbValues.skipModuleItems(in);
                }
                case FUNCTION -> visitor.function(in.string());
                case FUNCTION_PRE_GA -> throw new RdbFormatException(RdbFormatException.Kind.UNSUPPORTED, at, "a function at"
                        + " offset " + at + " is in the format of Redis 7.0's release candidates: save the data with Redis"
                        + " 7.0 or later and import that file");
                case EOF -> {
                    return new Result(version, trailer(in, at, version, mode), at);
                }
                default -> {
                    byte[] key = in.string();
                    if (op == RdbValues.STRING) {
                        byte[] value = null;
                        if (mode == Mode.LOAD) {
                            value = in.string();
                        } else {
                            in.skipString();
                        }
                        visitor.string(db, key, value, expireAt, in.offset());
                    } else if (RdbHashes.isHash(op)) {
                        visitor.hash(db, key, RdbHashes.read(in, op), expireAt, in.offset());
                    } else if (RdbLists.isList(op)) {
                        visitor.list(db, key, RdbLists.elements(in, op), expireAt, in.offset());
                    } else if (op == RdbSets.SET || op == RdbSets.SET_INTSET || op == RdbSets.SET_LISTPACK) {
                        java.util.List<byte[]> members = op == RdbSets.SET ? RdbSets.members(in)
                                : op == RdbSets.SET_INTSET ? RdbSets.intsetMembers(in) : RdbSets.listpackMembers(in);
                        visitor.set(db, key, members, expireAt, in.offset());
                    } else if (RdbStreams.isStream(op)) {
                        RdbStreams.Stream stream = RdbStreams.read(in, op);
                        visitor.stream(db, key, stream, expireAt, in.offset());
                    } else if (RdbZSets.isZSet(op)) {
                        RdbZSets.ZSet zset = RdbZSets.read(in, op);
                        visitor.zset(db, key, zset, expireAt, in.offset());
                    } else {
                        String type = RdbValues.name(op);
                        RdbValues.skip(in, op, key, at);
                        visitor.other(db, key, type, expireAt, in.offset());
                    }
                    expireAt = NO_EXPIRY;
                }
            }
        }
    }

    private static int header(RdbInput in) throws RdbFormatException {
        if (in.size() < MAGIC.length + 4 || in.bytes().asSlice(0, MAGIC.length).mismatch(MemorySegment.ofArray(MAGIC)) != -1) {
            throw new RdbFormatException(RdbFormatException.Kind.UNSUPPORTED, 0, "not an RDB file: it does not start with"
                    + " REDIS and a version (make one with 'redis-cli SAVE', which writes dump.rdb in Redis's 'dir')");
        }
        in.skip(MAGIC.length, "the header");
        String digits = new String(in.raw(4, "the version"), StandardCharsets.US_ASCII);
        int version;
        try {
            version = Integer.parseInt(digits);
        } catch (NumberFormatException e) {
            throw RdbInput.damaged(MAGIC.length, "the version '" + digits + "' after REDIS is not a number");
        }
        if (version < 1 || version > NEWEST_VERSION) {
            throw new RdbFormatException(RdbFormatException.Kind.UNSUPPORTED, MAGIC.length, "RDB version " + version
                    + " is not one this importer reads (1 to " + NEWEST_VERSION + ": Redis up to 7.2); save the data with"
                    + " Redis 7.2 or older (e.g. replicate it to one) and import that dump");
        }
        return version;
    }

    private static ChecksumState trailer(RdbInput in, long eofAt, int version, Mode mode) throws RdbFormatException {
        if (version < FIRST_CHECKSUMMED_VERSION) {
            return ChecksumState.NOT_CHECKED;
        }
        long stored = in.int64le();
        if (stored == 0) {
            return ChecksumState.OFF;
        }
        if (mode == Mode.LOAD) {
            return ChecksumState.NOT_CHECKED;
        }
        long computed = Crc64.update(0, in.bytes(), 0, eofAt + 1);
        if (computed != stored) {
            throw RdbInput.damaged(eofAt + 1, String.format("the CRC-64 at the end of the file is %016x, but the bytes before"
                    + " it give %016x: a byte changed after Redis wrote it", stored, computed));
        }
        return ChecksumState.VERIFIED;
    }

    private static String text(byte[] b) {
        return new String(b, StandardCharsets.UTF_8);
    }

    /** @return a key for messages: printable ASCII as is, other bytes as {@code \xNN}, at most 100 bytes */
    public static String printable(byte[] key) {
        StringBuilder s = new StringBuilder();
        for (int i = 0; i < Math.min(key.length, 100); i++) {
            int b = key[i] & 0xff;
            s.append(b >= 0x20 && b < 0x7f && b != '\\' ? String.valueOf((char) b) : String.format("\\x%02x", b));
        }
        return key.length > 100 ? s + "..." : s.toString();
    }
}
