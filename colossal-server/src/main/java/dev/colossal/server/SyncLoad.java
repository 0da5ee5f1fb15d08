package dev.colossal.server;

import dev.colossal.rdb.RdbReader;
import dev.colossal.rdb.RdbStreams;
import dev.colossal.rdb.RdbZSets;
import java.util.List;
import java.util.concurrent.locks.Lock;
import java.util.function.Consumer;

/**
 * Loads a master's snapshot into the running server's databases, as {@link RdbReader} tells of its
 * keys: each one stored as RESTORE stores it ({@link KeyLoads}), under its lock, so that a client
 * reading meanwhile sees it whole. Keys past their deadline are loaded too, as Redis's replicas load
 * them: they read as gone, and the master's DEL removes them. What cannot be loaded (a database
 * beyond {@code --databases}, a library that does not compile here) throws
 * {@link IllegalStateException}, which fails the sync.
 */
final class SyncLoad implements RdbReader.Visitor {

    private final ServerContext ctx;
    private final KeyLoads loads;
    /** Keys stored. */
    long keys;
    /** Keys of types this server does not store (modules), passed over. */
    long skipped;

    SyncLoad(ServerContext ctx) {
        this.ctx = ctx;
        this.loads = KeyLoads.of(ctx);
    }

    private void store(int db, byte[] key, Consumer<KeyValueStore> write) {
        if (db >= ctx.dbs.count()) {
            throw new IllegalStateException("the master's snapshot has database " + db
                    + ", this server only " + ctx.dbs.count() + ": start it with --databases " + (db + 1) + " or more");
        }
        KeyValueStore store = ctx.dbs.store(db);
        Lock l = store.lock(key);
        l.lock();
        try {
            write.accept(store);
        } finally {
            l.unlock();
        }
        keys++;
        long delay = ctx.replica.keyLoadDelayMicros;
        if (delay > 0) {
            java.util.concurrent.locks.LockSupport.parkNanos(delay * 1000);
        }
    }

    @Override
    public void string(int db, byte[] key, byte[] value, long expireAtMillis, long offset) {
        store(db, key, s -> loads.string(s, key, value, expireAtMillis));
    }

    @Override
    public void hash(int db, byte[] key, List<byte[]> fieldsAndValues, long expireAtMillis, long offset)
            {
        store(db, key, s -> loads.hash(s, key, fieldsAndValues, expireAtMillis));
    }

    @Override
    public void set(int db, byte[] key, List<byte[]> members, long expireAtMillis, long offset) {
        store(db, key, s -> loads.set(s, key, members, expireAtMillis));
    }

    @Override
    public void list(int db, byte[] key, List<byte[]> elements, long expireAtMillis, long offset) {
        store(db, key, s -> loads.list(s, key, elements, expireAtMillis));
    }

    @Override
    public void zset(int db, byte[] key, RdbZSets.ZSet zset, long expireAtMillis, long offset) {
        store(db, key, s -> loads.zset(s, key, zset, expireAtMillis));
    }

    @Override
    public void stream(int db, byte[] key, RdbStreams.Stream stream, long expireAtMillis, long offset)
            {
        store(db, key, s -> loads.stream(s, key, stream, expireAtMillis));
    }

    @Override
    public void other(int db, byte[] key, String type, long expireAtMillis, long offset) {
        skipped++;
        System.err.println("colossal: the master's key '" + RdbReader.printable(key) + "' of database " + db + " is a "
                + type + ", which this server does not store: passed over");
    }

    @Override
    public void function(byte[] code) {
        try {
            ctx.functions.restore(code);
        } catch (ReplyException e) {
            throw new IllegalStateException("the master's function library does not load here: " + e.getMessage(), e);
        }
    }
}
