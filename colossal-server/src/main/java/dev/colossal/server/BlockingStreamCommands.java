package dev.colossal.server;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * XREAD, with and without BLOCK, with Redis 7.0's replies: the streams that have entries above
 * their IDs answer at once; otherwise, with BLOCK, the client waits ({@link KeyWaits}) until an
 * XADD (or a RENAME, RESTORE, MOVE, COPY onto one of its keys) gives one of them such an entry,
 * its timeout (milliseconds, 0 for ever), or CLIENT UNBLOCK; then it gets that stream's entries
 * only. Inside MULTI and scripts it does not wait, and answers as a timeout would.
 */
final class BlockingStreamCommands {

    private final ServerContext ctx;

    BlockingStreamCommands(ServerContext ctx) {
        this.ctx = ctx;
    }

    void register(CommandTable t) {
        t.add("xread", -4, List.of("readonly", "blocking", "movablekeys"), 0, 0, 0, this::xread);
    }

    /** One stream's part of a reply. */
    private record Found(byte[] key, List<StreamNode.Entry> entries) {}

    private void xread(Client c, byte[][] a, Reply r) {
        StreamReadArgs x = StreamReadArgs.parse(a, c.denyBlocking, r);
        if (x == null) {
            return;
        }
        KeyValueStore store = ctx.db(c);
        StreamId[] ids = x.ids(store, r);
        if (ids == null) {
            return;
        }
        List<Found> found = new ArrayList<>();
        for (int i = 0; i < ids.length; i++) {
            Found f = read(store, x.keys()[i], ids[i], x.count());
            if (f != null) {
                found.add(f);
            }
        }
        if (!found.isEmpty()) {
            write(r, found);
            return;
        }
        if (x.block() < 0 || !BlockingListCommands.mayBlock(c)) {
            r.nullArray();
            return;
        }
        int db = c.db;
        int protocol = c.reply.protocol;
        ctx.waits.block(new KeyWaits.Waiter(c, db, x.keys(), key -> {
            KeyValueStore s = ctx.dbs.store(db);
            for (int i = 0; i < x.keys().length; i++) {
                if (Arrays.equals(x.keys()[i], key)) {
                    Found f;
                    try {
                        f = read(s, key, ids[i], x.count());
                    } catch (ReplyException otherType) {
                        return null;   // Redis's waiter keeps waiting while the key holds another type
                    }
                    if (f != null) {
                        return resp(protocol, List.of(f));
                    }
                }
            }
            return null;
        }, BlockingListCommands.nullArray(c), false), x.block());
    }

    /** @return the entries of {@code key} above {@code after} (at most {@code count}, 0: all), or null if none */
    private static Found read(KeyValueStore store, byte[] key, StreamId after, long count) {
        StreamId from = after.next();
        if (from == null) {
            return null;
        }
        List<StreamNode.Entry> es = StoredStream.locked(store, key,
                s -> s == null ? List.of() : s.range(from, StreamId.MAX, count == 0 ? -1 : count, false));
        return es.isEmpty() ? null : new Found(key, es);
    }

    /** Writes XREAD's reply: a map of stream to entries in RESP3, an array of [stream, entries] pairs in RESP2. */
    private static void write(Reply r, List<Found> found) {
        if (r.protocol >= 3) {
            r.map(found.size());
        } else {
            r.array(found.size());
        }
        for (Found f : found) {
            if (r.protocol < 3) {
                r.array(2);
            }
            r.bulk(f.key());
            r.array(f.entries().size());
            f.entries().forEach(e -> StreamCommands.entry(r, e));
        }
    }

    /** @return {@link #write}'s bytes in {@code protocol}, for a waiter's loop to send */
    private static byte[] resp(int protocol, List<Found> found) {
        return GroupReadCommand.resp(protocol, r -> write(r, found));
    }
}
