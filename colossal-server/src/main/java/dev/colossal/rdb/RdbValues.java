package dev.colossal.rdb;

/**
 * Finds where a value Colossal does not store ends, so that the keys after it can be read: the
 * value types of RDB versions 1 to 11, by their type byte. Most are one string (a compact
 * encoding saved whole) or a count of strings; the rest are drawn here.
 *
 * <pre>
 *  type  Redis type  layout after the key
 *  0     string      a string (read by {@link RdbReader}, not here)
 *  1, 2  list, set   count, then count strings
 *  3     zset        count, then count (member string, score as a text double: [n][n bytes], n=253..255 NaN/+inf/-inf)
 *  4     hash        count, then count (field, value) string pairs
 *  5     zset        count, then count (member string, score as 8 bytes, an IEEE double)
 *  6     module      (before Redis 4.0 GA) module data only the module can measure: refused
 *  7     module      module id (length), then module items until item type 0: see {@link #skipModuleItems}
 *  9..13 hash (zipmap), list (ziplist), set (intset), zset (ziplist), hash (ziplist): one string
 *  14    list        count, then count ziplist strings (quicklist)
 *  15, 19, 21        stream: see {@link #skipStream}
 *  16, 17 hash, zset (listpack): one string
 *  18    list        count, then count (container length: 1 plain, 2 packed; string) (quicklist 2)
 *  20    set         (listpack) one string
 * </pre>
 */
final class RdbValues {

    static final int STRING = 0;
    static final int HASH = 4;
    static final int HASH_LISTPACK = 16;
    private static final int ZSET_TEXT_SCORES = 3;
    private static final int ZSET_BINARY_SCORES = 5;
    private static final int MODULE_PRE_GA = 6;
    private static final int MODULE = 7;
    private static final int QUICKLIST = 14;
    private static final int QUICKLIST_2 = 18;
    private static final String[] NAMES = {
        "string", "list", "set", "zset", "hash", "zset", "module", "module", null, "hash", "list", "set", "zset", "hash",
        "list", "stream", "hash", "zset", "list", "stream", "set", "stream",
    };
    /** Module item types: each is a length-encoded type, then the item. */
    private static final int MODULE_EOF = 0;
    private static final int MODULE_SINT = 1;
    private static final int MODULE_UINT = 2;
    private static final int MODULE_FLOAT = 3;
    private static final int MODULE_DOUBLE = 4;
    private static final int MODULE_STRING = 5;
    private static final String MODULE_ID_CHARS = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";

    private RdbValues() {}

    /** @return the Redis type of value type {@code type}, or null if no RDB version up to 11 has it */
    static String name(int type) {
        return type < NAMES.length ? NAMES[type] : null;
    }

    /**
     * Moves {@code in} past a value of {@code type} that is not a string.
     *
     * @param key for messages
     */
    static void skip(RdbInput in, int type, byte[] key, long typeAt) throws RdbFormatException {
        switch (type) {
            case 1, 2, QUICKLIST -> skipStrings(in, in.length());
            case 4 -> {
                long n = in.length();
                for (long i = 0; i < n; i++) {
                    in.skipString();
                    in.skipString();
                }
            }
            case ZSET_TEXT_SCORES -> {
                long n = in.length();
                for (long i = 0; i < n; i++) {
                    in.skipString();
                    int len = in.u8();
                    if (len < 253) {
                        in.skip(len, "a zset score");
                    }
                }
            }
            case ZSET_BINARY_SCORES -> {
                long n = in.length();
                for (long i = 0; i < n; i++) {
                    in.skipString();
                    in.skip(Double.BYTES, "a zset score");
                }
            }
            case QUICKLIST_2 -> {
                long n = in.length();
                for (long i = 0; i < n; i++) {
                    in.length();
                    in.skipString();
                }
            }
            case 9, 10, 11, 12, 13, 16, 17, 20 -> in.skipString();
            case RdbStreams.STREAM, RdbStreams.STREAM_2, RdbStreams.STREAM_3 -> skipStream(in, type);
            case MODULE -> {
                in.length();
                skipModuleItems(in);
            }
            case MODULE_PRE_GA -> throw new RdbFormatException(RdbFormatException.Kind.UNSUPPORTED, typeAt, "key '"
                    + RdbReader.printable(key) + "' at offset " + typeAt + " holds a module value (type 6) of module "
                    + moduleName(in) + " in the format of Redis 4.0's release candidates, whose length only the module"
                    + " knows: delete the key in Redis (or save it with Redis 4.0 or later) and SAVE again");
            default -> throw RdbInput.damaged(typeAt, "value type " + type + " of key '" + RdbReader.printable(key)
                    + "' is none that Redis up to 7.2 writes");
        }
    }

    private static void skipStrings(RdbInput in, long n) throws RdbFormatException {
        for (long i = 0; i < n; i++) {
            in.skipString();
        }
    }

    /**
     * A stream: its listpacks, its counters, then its consumer groups with their pending entries.
     *
     * <pre>
     *  count, then count (master ID string, listpack string)
     *  length, last ID (ms, seq)                                      lengths
     *  [19+: first ID (ms, seq), max deleted ID (ms, seq), entries added]  lengths
     *  groups, then per group:
     *    name string, last ID (ms, seq) lengths, [19+: entries read length]
     *    pending count, then per entry: ID (16 raw bytes), delivery time (8 bytes), delivery count length
     *    consumers, then per consumer: name string, seen time (8 bytes), [21: active time (8 bytes)],
     *      pending count, then per entry: ID (16 raw bytes)
     * </pre>
     */
    static void skipStream(RdbInput in, int type) throws RdbFormatException {
        long listpacks = in.length();
        for (long i = 0; i < listpacks; i++) {
            in.skipString();
            in.skipString();
        }
        lengths(in, type >= RdbStreams.STREAM_2 ? 8 : 3);
        skipGroups(in, type, in.length());
    }

    /** Passes over a stream's {@code groups} consumer groups (the record's last part, drawn in {@link #skipStream}). */
    static void skipGroups(RdbInput in, int type, long groups) throws RdbFormatException {
        for (long g = 0; g < groups; g++) {
            in.skipString();
            // the last ID's parts, and entries read, which is -1 (all bits set) until known
            for (int i = type >= RdbStreams.STREAM_2 ? 3 : 2; i > 0; i--) {
                in.unsignedLength();
            }
            long pending = in.length();
            for (long p = 0; p < pending; p++) {
                in.skip(16 + 8, "a pending stream entry");
                in.length();
            }
            long consumers = in.length();
            for (long c = 0; c < consumers; c++) {
                in.skipString();
                in.skip(type >= RdbStreams.STREAM_3 ? 16 : 8, "a consumer's times");
                long owned = in.length();
                for (long p = 0; p < owned; p++) {
                    in.skip(16, "a consumer's pending entry");
                }
            }
        }
    }

    private static void lengths(RdbInput in, int n) throws RdbFormatException {
        for (int i = 0; i < n; i++) {
            in.length();
        }
    }

    /**
     * Module data saved by Redis 4.0 GA and later: items, each a length-encoded item type then the
     * item (1, 2: a length-encoded integer; 3: 4 bytes; 4: 8 bytes; 5: a string), until type 0.
     */
    static void skipModuleItems(RdbInput in) throws RdbFormatException {
        while (true) {
            long itemAt = in.offset();
            long item = in.length();
            switch ((int) Math.min(item, Integer.MAX_VALUE)) {
                case MODULE_EOF -> {
                    return;
                }
                case MODULE_SINT, MODULE_UINT -> in.length();
                case MODULE_FLOAT -> in.skip(Float.BYTES, "a module's float");
                case MODULE_DOUBLE -> in.skip(Double.BYTES, "a module's double");
                case MODULE_STRING -> in.skipString();
                default -> throw RdbInput.damaged(itemAt, "module data item type " + item + " is none Redis writes");
            }
        }
    }

    /** Reads a module id and gives the module's name: 9 characters of 6 bits each, above a 10-bit version. */
    private static String moduleName(RdbInput in) throws RdbFormatException {
        long id = in.length();
        StringBuilder name = new StringBuilder();
        for (int i = 0; i < 9; i++) {
            name.append(MODULE_ID_CHARS.charAt((int) ((id >>> (64 - 6 * (i + 1))) & 63)));
        }
        return "'" + name + "'";
    }
}
