package dev.colossal.server;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.locks.Lock;

/**
 * BZPOPMIN and BZPOPMAX with Redis 7.0's semantics: the lowest (highest) member of the first named
 * key holding a sorted set, taken at once; otherwise the client waits ({@link KeyWaits}) until a
 * write to one of its keys gives it one, its timeout (seconds as a double, 0 for ever), or CLIENT
 * UNBLOCK. Inside MULTI and scripts they do not wait, and answer as a timeout would. The reply is
 * the key, the member and its score (a RESP3 double).
 */
final class BlockingSortedSetCommands {

    private final ServerContext ctx;

    BlockingSortedSetCommands(ServerContext ctx) {
        this.ctx = ctx;
    }

    void register(CommandTable t) {
        List<String> flags = List.of("write", "noscript", "blocking", "fast");
        t.add("bzpopmin", -3, flags, 1, -2, 1, (c, a, r) -> bzpop(c, a, r, true));
        t.add("bzpopmax", -3, flags, 1, -2, 1, (c, a, r) -> bzpop(c, a, r, false));
    }

    private void bzpop(Client c, byte[][] a, Reply r, boolean min) {
        long timeout = BlockingListCommands.timeout(a[a.length - 1], r);
        if (timeout == BlockingListCommands.REFUSED) {
            return;
        }
        byte[][] keys = Arrays.copyOfRange(a, 1, a.length - 1);
        int protocol = r.protocol;
        for (byte[] key : keys) {
            byte[] reply = popOne(c.db, key, min, protocol); // WRONGTYPE from a key of another type, as Redis
            if (reply != null) {
                r.append(reply);
                return;
            }
        }
        if (!BlockingListCommands.mayBlock(c)) {
            r.nullArray();
            return;
        }
        int db = c.db;
        byte[] onTimeout = BlockingListCommands.nullArray(c);
        ctx.waits.block(new KeyWaits.Waiter(c, db, keys, key -> {
            try {
                return popOne(db, key, min, protocol);
            } catch (ReplyException otherType) {
                return null; // a key that now holds another type serves no one; the wait goes on
            }
        }, onTimeout), timeout);
    }

    /** @return the reply for the member popped from {@code key}, or null if it holds no sorted set */
    private byte[] popOne(int db, byte[] key, boolean min, int protocol) {
        KeyValueStore store = ctx.dbs.store(db);
        Lock l = store.lock(key);
        l.lock();
        try {
            KeyValueStore.Entry e = SortedSetCommands.zset(store, key);
            if (e == null) {
                return null;
            }
            ZSetWrites z = SortedSetCommands.open(store, key, e, ctx.zsetMaxListpackEntries);
            long at = min ? 0 : z.count() - 1;
            Object[] first = new Object[2];
            z.walk(at, !min, (s, m) -> {
                first[0] = s;
                first[1] = m;
                return false;
            });
            byte[] member = (byte[]) first[1];
            String score = ZScore.format((double) first[0]);
            z.removeRanks(at, at + 1);
            SortedSetCommands.store(store, key, e, z);
            SortedSetCommands.changed(ctx, store, key, min ? "zpopmin" : "zpopmax", z.count() == 0);
            ByteArrayOutputStream out = new ByteArrayOutputStream();
            out.writeBytes("*3\r\n".getBytes(StandardCharsets.US_ASCII));
            out.writeBytes(BlockingListCommands.bulk(key));
            out.writeBytes(BlockingListCommands.bulk(member));
            out.writeBytes(protocol >= 3 ? (',' + score + "\r\n").getBytes(StandardCharsets.US_ASCII)
                    : BlockingListCommands.bulk(score.getBytes(StandardCharsets.US_ASCII)));
            return out.toByteArray();
        } finally {
            l.unlock();
        }
    }
}
