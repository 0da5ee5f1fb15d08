package dev.colossal.server;

import dev.colossal.rdb.RdbStreams;
import dev.colossal.rdb.RdbZSets;
import java.util.List;

/**
 * Stores a key read whole from a dump (an RDB file's record or a RESTORE payload) in a database,
 * in the server's own forms, replacing what the key held: the one conversion RESTORE, {@code
 * colossal import-rdb} ({@link DataDirWriter}) and a replica's full sync ({@link SyncLoad}) share.
 * The bounds decide each value's encoding, as the same writes by commands would.
 *
 * @param hashMaxListpackEntries  hash-max-listpack-entries
 * @param setMaxIntsetEntries     set-max-intset-entries
 * @param zsetMaxListpackEntries  zset-max-listpack-entries
 * @param streamNodeMaxEntries    stream-node-max-entries
 */
record KeyLoads(long hashMaxListpackEntries, long setMaxIntsetEntries, long zsetMaxListpackEntries,
        long streamNodeMaxEntries) {

    /** Redis's default bounds: what a directory filled with no server running gets. */
    static final KeyLoads DEFAULTS = new KeyLoads(HashLayout.MAX_LISTPACK_ENTRIES, SetLayout.MAX_INTSET_ENTRIES,
            ZSetLayout.MAX_LISTPACK_ENTRIES, StreamLayout.DEFAULT_NODE_MAX_ENTRIES);

    /** @return the bounds {@code ctx} runs with now (CONFIG SET changes them) */
    static KeyLoads of(ServerContext ctx) {
        return new KeyLoads(ctx.hashMaxListpackEntries, ctx.setMaxIntsetEntries, ctx.zsetMaxListpackEntries,
                ctx.streamNodeMaxEntries);
    }

    void string(KeyValueStore store, byte[] key, byte[] value, long at) {
        store.set(key, value, at);
    }

    /** @param fieldsAndValues fields and values, alternately, no field twice */
    void hash(KeyValueStore store, byte[] key, List<byte[]> fieldsAndValues, long at) {
        StoredHash.save(store, key, HashValue.loaded(fieldsAndValues), at, hashMaxListpackEntries);
    }

    /** @param members distinct */
    void set(KeyValueStore store, byte[] key, List<byte[]> members, long at) {
        SetCommands.save(store, key, SetValue.loaded(members, setMaxIntsetEntries), at, setMaxIntsetEntries);
    }

    /** @param elements head first, at least one */
    void list(KeyValueStore store, byte[] key, List<byte[]> elements, long at) {
        StoredList.load(store, key, elements, at);
    }

    void zset(KeyValueStore store, byte[] key, RdbZSets.ZSet zset, long at) {
        SortedSetCommands.save(store, key, ZSetValue.loaded(zset.members(), zset.scores(), zset.listpack(),
                zsetMaxListpackEntries), at);
    }

    /** A stream with its consumer groups. */
    void stream(KeyValueStore store, byte[] key, RdbStreams.Stream stream, long at) {
        StoredStream.load(store, key, stream, at, streamNodeMaxEntries);
    }
}
