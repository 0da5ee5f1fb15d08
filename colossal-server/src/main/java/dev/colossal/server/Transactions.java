package dev.colossal.server;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.locks.Lock;

/**
 * MULTI, EXEC, DISCARD, WATCH and UNWATCH. Between MULTI and EXEC a client's commands are checked
 * (name, arity) and queued; EXEC runs them one after the other while it holds the key locks of
 * every key they and the watched keys name, so no other client's write to those keys lands between
 * them, and a transaction's reads see its keys at one moment. Other clients' reads are not held
 * off: they may see a transaction's writes half done, where Redis would show all or none.
 *
 * <p>WATCH registers each key in {@link WatchedKeys}, which marks the client when any write changes
 * it, and remembers its stored value (with its deadline) in the client's database; EXEC gives up (a
 * null reply) if the client was marked or a value differs when it runs, there (after a SWAPDB, the
 * value of whatever database now has that number). So a key written back as it was, or set and
 * expired again, makes EXEC give up, as in Redis. A SELECT queued in the transaction applies to the
 * commands after it, and stays after EXEC, as in Redis; the key locks are the same in every
 * database, so EXEC's locks hold whichever databases its commands go to.
 */
final class Transactions {

    private final ServerContext ctx;
    private final CommandTable table;

    Transactions(ServerContext ctx, CommandTable table) {
        this.ctx = ctx;
        this.table = table;
    }

    void register(CommandTable t) {
        t.add("multi", 1, List.of("fast", "noscript"), 0, 0, 0, this::multi);
        t.add("exec", 1, List.of("noscript", "slow"), 0, 0, 0, this::exec);
        t.add("discard", 1, List.of("fast", "noscript"), 0, 0, 0, this::discard);
        t.add("watch", -2, List.of("fast", "noscript"), 1, -1, 1, this::watch);
        t.add("unwatch", 1, List.of("fast", "noscript"), 0, 0, 0, (c, a, r) -> {
            unwatch(ctx, c);
            r.ok();
        });
    }

    /** What MULTI answers a command Redis flags no-multi. */
    static final String NOT_IN_MULTI = "ERR Command not allowed inside a transaction";

    /**
     * Whether MULTI refuses a command, as Redis refuses those it flags no-multi (SHUTDOWN, SAVE, SYNC,
     * PSYNC): a SHUTDOWN in EXEC would block the transaction's client, and a SYNC in it would stream
     * a snapshot into its reply.
     */
    static boolean refusedInsideMulti(String name) {
        CommandFacts.Entry e = CommandFacts.REDIS.get(name);
        return e != null && e.has("no_multi");
    }

    /** Whether a command runs at once inside MULTI instead of being queued (as in Redis). */
    static boolean runsInsideMulti(String name) {
        return switch (name) {
            case "exec", "discard", "multi", "watch", "quit", "reset" -> true;
            default -> false;
        };
    }

    private void multi(Client c, byte[][] a, Reply r) {
        if (c.queued != null) {
            r.error("ERR MULTI calls can not be nested");
            return;
        }
        c.queued = new ArrayList<>();
        c.queueRefused = false;
        r.ok();
    }

    private void discard(Client c, byte[][] a, Reply r) {
        if (c.queued == null) {
            r.error("ERR DISCARD without MULTI");
            return;
        }
        c.queued = null;
        unwatch(ctx, c);
        r.ok();
    }

    private void watch(Client c, byte[][] a, Reply r) {
        if (c.queued != null) {
            r.error("ERR WATCH inside MULTI is not allowed");
            return;
        }
        for (int i = 1; i < a.length; i++) {
            byte[] value = stored(c.db, a[i]);
            c.watchedKeys.add(a[i]);
            c.watchedDbs.add(c.db);
            c.watchedValues.add(value);
            ctx.watches.watch(c, c.db, a[i], value == null);
        }
        r.ok();
    }

    private void exec(Client c, byte[][] a, Reply r) {
        List<byte[][]> queued = c.queued;
        if (queued == null) {
            r.error("ERR EXEC without MULTI");
            return;
        }
        c.queued = null;
        if (ctx.dbs.memoryFull() && OomRefusal.execRefused(queued, table)) {
            unwatch(ctx, c);
            r.error("EXECABORT Transaction discarded because of: " + OomRefusal.ERROR);
            return;
        }
        if (c.queueRefused) {
            unwatch(ctx, c);
            r.error("EXECABORT Transaction discarded because of previous errors.");
            return;
        }
        // A queued script locks stripes as it goes, and so does a command whose keys move with its
        // arguments (ZUNIONSTORE's sources: not in its key positions), so EXEC must hold the
        // multi-stripe lock first (see KeyLocks), whatever the number of keys the others name.
        Lock multi = queued.stream().anyMatch(q -> ScriptCommands.runsScript(q[0]) || movableKeys(q[0]))
                ? ctx.dbs.locks().multiStripe() : null;
        if (multi != null) {
            multi.lock();
        }
        Lock[] locks = ctx.dbs.locks().locks(keysOf(queued, c.watchedKeys));
        StringCommands.lockAll(locks);
        try {
            if (c.watchTouched || changedSinceWatched(c)) {
                unwatch(ctx, c);
                r.nullArray();
                return;
            }
            unwatch(ctx, c);
            r.array(queued.size());
            c.inExec = true;
            for (byte[][] command : queued) {
                table.execute(c, command);
            }
        } finally {
            c.inExec = false;
            StringCommands.unlockAll(locks);
            if (multi != null) {
                multi.unlock();
            }
        }
    }

    /** @return whether {@code name} is a command whose keys its key positions do not all give (COMMAND's {@code movablekeys}) */
    private boolean movableKeys(byte[] name) {
        CommandSpec spec = table.find(name);
        return spec != null && spec.movableKeys();
    }

    /**
     * Whether a watched key's value differs from the one WATCH saw: what a change fires no event
     * for (FLUSHDB, FLUSHALL, SWAPDB, a key that expired unseen) still makes EXEC give up.
     */
    private boolean changedSinceWatched(Client c) {
        for (int i = 0; i < c.watchedKeys.size(); i++) {
            if (!Arrays.equals(c.watchedValues.get(i), stored(c.watchedDbs.get(i), c.watchedKeys.get(i)))) {
                return true;
            }
        }
        return false;
    }

    /** Ends {@code c}'s WATCH: its keys forgotten, here and in {@link WatchedKeys}. */
    static void unwatch(ServerContext ctx, Client c) {
        ctx.watches.forget(c);
        c.watchedKeys.clear();
        c.watchedDbs.clear();
        c.watchedValues.clear();
    }

    /** The stored form of a live key of database {@code db} (value and deadline), or null if absent or expired. */
    private byte[] stored(int db, byte[] key) {
        KeyValueStore.Entry e = ctx.dbs.store(db).get(key);
        return e == null ? null : e.array();
    }

    /** Every key the queued commands name (by their specs' key positions), and the watched ones. */
    private byte[][] keysOf(List<byte[][]> queued, List<byte[]> watched) {
        List<byte[]> keys = new ArrayList<>(watched);
        for (byte[][] command : queued) {
            CommandSpec spec = table.find(command[0]);
            if (spec != null) {
                spec.forEachKey(command, keys::add);
            }
        }
        return keys.toArray(byte[][]::new);
    }
}
