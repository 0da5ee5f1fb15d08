package dev.colossal.server;

import java.util.Map;

/**
 * Redis 7.0's settings that only choose how it packs a value in memory, and that this server's
 * layouts do not follow: a list's node size and compression depth, and the longest field, value or
 * member a small hash or sorted set keeps in a listpack. They change no reply in Redis, so CONFIG SET
 * takes any value Redis takes and CONFIG GET answers it, for the tuning scripts, managed-service
 * agents and test fixtures that set them (a refusal would fail them over a memory trade-off); what
 * the server stores is the same whatever they are. One exception: hash-max-listpack-value decides,
 * as in Redis, when a hash write turns the encoding OBJECT ENCODING reports (and HSCAN follows) from
 * listpack to hashtable ({@link HashWrites#listpackValueLimit}).
 */
final class EncodingConfig {

    /** list-max-listpack-size: Redis's quicklist node size (-2: 8 KiB nodes). */
    volatile long listMaxListpackSize = -2;
    /** list-compress-depth: quicklist nodes left uncompressed at each end (0: none compressed). */
    volatile long listCompressDepth;
    /** hash-max-listpack-value: the longest field or value a listpack hash keeps. */
    volatile long hashMaxListpackValue = HashLayout.MAX_LISTPACK_VALUE;
    /** zset-max-listpack-value: the longest member a listpack sorted set keeps. */
    volatile long zsetMaxListpackValue = ZSetLayout.MAX_LISTPACK_VALUE;

    /**
     * @param name a CONFIG parameter's name, lower case
     * @return whether it is one of these settings, under its name or its old ziplist one
     */
    static boolean holds(String name) {
        return switch (name) {
            case "list-max-listpack-size", "list-max-ziplist-size", "list-compress-depth", "hash-max-listpack-value",
                 "hash-max-ziplist-value", "zset-max-listpack-value", "zset-max-ziplist-value" -> true;
            default -> false;
        };
    }

    /** @return whether {@code name} takes a size (64, 1kb) rather than a plain integer, as in Redis */
    static boolean isSize(String name) {
        return name.startsWith("hash") || name.startsWith("zset");
    }

    /** @return the least value Redis takes for {@code name} (list sizes go negative: -1 to -5 pick a byte bound) */
    static long min(String name) {
        return name.startsWith("list-max") ? Integer.MIN_VALUE : 0;
    }

    /** @return the greatest value Redis takes for {@code name} */
    static long max(String name) {
        return isSize(name) ? Long.MAX_VALUE : Integer.MAX_VALUE;
    }

    /** Sets {@code name}, which {@link #holds} and whose value is in range, to {@code value}. */
    void set(String name, long value) {
        if (name.startsWith("list-max")) {
            listMaxListpackSize = value;
        } else if (name.startsWith("list")) {
            listCompressDepth = value;
        } else if (name.startsWith("hash")) {
            hashMaxListpackValue = value;
        } else {
            zsetMaxListpackValue = value;
        }
    }

    /** Puts every one of these settings, under both its names, into CONFIG GET's {@code values}. */
    void putAll(Map<String, String> values) {
        values.put("list-max-listpack-size", Long.toString(listMaxListpackSize));
        values.put("list-max-ziplist-size", Long.toString(listMaxListpackSize));
        values.put("list-compress-depth", Long.toString(listCompressDepth));
        values.put("hash-max-listpack-value", Long.toString(hashMaxListpackValue));
        values.put("hash-max-ziplist-value", Long.toString(hashMaxListpackValue));
        values.put("zset-max-listpack-value", Long.toString(zsetMaxListpackValue));
        values.put("zset-max-ziplist-value", Long.toString(zsetMaxListpackValue));
    }
}
