package dev.colossal.server;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.locks.Lock;
import java.util.function.Consumer;

/**
 * XREADGROUP, with Redis 7.0's replies, errors and order of checks. {@code >} delivers the
 * entries after the group's last delivered ID and records them in its pending entries list
 * (unless NOACK); an explicit ID reads the consumer's own pending entries after it again (a
 * deleted entry answers its ID with a nil). The consumer is made, and its seen-time set, when a
 * read serves it something (history, or new entries), as in 7.0. With BLOCK and nothing new, the client waits ({@link KeyWaits}) until an XADD gives the
 * group an entry, its timeout, CLIENT UNBLOCK, or its group or key goes (then Redis's NOGROUP or
 * UNBLOCKED error, at once after the command that did it, as in Redis 7.0.15: XGROUP DESTROY, DEL,
 * UNLINK, SET or another type over the key, RENAME or MOVE of it, its expiry, FLUSHDB, FLUSHALL,
 * SWAPDB with a database that has no such stream or group). XTRIM, XDEL and XGROUP SETID leave it
 * waiting, as in Redis.
 */
final class GroupReadCommand {

    private final ServerContext ctx;

    GroupReadCommand(ServerContext ctx) {
        this.ctx = ctx;
    }

    void register(CommandTable t) {
        t.add("xreadgroup", -7, List.of("write", "blocking", "movablekeys"), 0, 0, 0, this::xreadgroup);
    }

    /**
     * XREADGROUP's options.
     *
     * @param count  entries per stream at most (0: all)
     * @param block  milliseconds to wait (0: for ever), or -1 not to wait
     */
    private record Options(long count, long block, boolean noAck, byte[] group, byte[] consumer, byte[][] keys,
                           byte[][] idArgs) {}

    /** One entry of a reply: its ID and the entry, null if it was deleted. */
    private record Item(StreamId id, StreamNode.Entry entry) {}

    /** One stream's part of a reply. */
    private record Found(byte[] key, List<Item> items) {}

    /**
     * Takes GROUP and NOACK out of the options and reads the rest as XREAD's ({@link StreamReadArgs}).
     *
     * @return the options, or null once the error is answered
     */
    private static Options parse(byte[][] a, boolean inScript, Reply r) {
        byte[] group = null;
        byte[] consumer = null;
        boolean noAck = false;
        boolean blocks = false;
        List<byte[]> rest = new ArrayList<>(a.length);
        rest.add(a[0]);
        int i = 1;
        for (; i < a.length && !Args.is(a[i], "STREAMS"); i++) {
            int more = a.length - i - 1;
            if (Args.is(a[i], "GROUP") && more >= 2) {
                group = a[++i];
                consumer = a[++i];
            } else if (Args.is(a[i], "NOACK")) {
                noAck = true;
            } else {
                rest.add(a[i]);
                if ((Args.is(a[i], "COUNT") || Args.is(a[i], "BLOCK")) && more > 0) {
                    blocks |= Args.is(a[i], "BLOCK");
                    rest.add(a[++i]);
                }
            }
        }
        if (inScript && blocks) {
            r.error("ERR xreadgroup command is not allowed with BLOCK option from scripts");
            return null;
        }
        rest.addAll(Arrays.asList(a).subList(i, a.length));
        StreamReadArgs x = StreamReadArgs.parse(rest.toArray(byte[][]::new), false, r);
        if (x == null) {
            return null;
        }
        if (group == null) {
            r.error("ERR Missing GROUP option for XREADGROUP");
            return null;
        }
        return new Options(x.count(), x.block(), noAck, group, consumer, x.keys(), x.idArgs());
    }

    private void xreadgroup(Client c, byte[][] a, Reply r) {
        Options x = parse(a, c.denyBlocking, r);
        if (x == null) {
            return;
        }
        KeyValueStore store = ctx.db(c);
        StreamId[] ids = new StreamId[x.keys().length];
        for (int i = 0; i < ids.length; i++) {
            Lock l = store.lock(x.keys()[i]);
            l.lock();
            boolean hasGroup;
            try {
                hasGroup = StreamGroups.has(store, x.keys()[i], x.group());
            } finally {
                l.unlock();
            }
            if (!hasGroup) {
                r.error("NOGROUP No such key '" + Errors.text(x.keys()[i]) + "' or consumer group '"
                        + Errors.text(x.group()) + "' in XREADGROUP with GROUP option");
                return;
            }
            byte[] arg = x.idArgs()[i];
            if (arg.length == 1 && arg[0] == '$') {
                r.error("ERR The $ ID is meaningless in the context of XREADGROUP: you want to read the history of"
                        + " this consumer by specifying a proper ID, or use the > ID to get new messages. The $ ID"
                        + " would just return an empty result set.");
                return;
            }
            if (arg.length == 1 && arg[0] == '>') {
                continue;   // null: new entries
            }
            ids[i] = StreamId.parse(arg, 0, true);
            if (ids[i] == null) {
                r.error(StreamId.INVALID);
                return;
            }
        }
        List<Found> found = new ArrayList<>();
        for (int i = 0; i < ids.length; i++) {
            Found f = read(c.db, store, x, x.keys()[i], ids[i]);
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
        KeyWaits.Attempt gone = key -> gone(db, key, x.group());
        ctx.waits.block(new KeyWaits.Waiter(c, db, x.keys(), key -> {
            byte[] error = gone.run(key);
            if (error != null) {
                return error;
            }
            Found f = read(db, ctx.dbs.store(db), x, key, null);
            return f == null ? null : resp(protocol, rr -> write(rr, List.of(f)));
        }, BlockingListCommands.nullArray(c), false, gone), x.block());
    }

    /** @return the error that ends a wait on {@code key} of database {@code db} for {@code group}: its stream or group went; null while both are there */
    private byte[] gone(int db, byte[] key, byte[] group) {
        KeyValueStore s = ctx.dbs.store(db);
        Lock l = s.lock(key);
        l.lock();
        try {
            StoredStream st;
            try {
                st = StoredStream.read(s, key);
            } catch (ReplyException otherType) {
                st = null;
            }
            if (st == null) {
                return Errors.bytes("-UNBLOCKED the stream key no longer exists\r\n");
            }
            if (StreamGroups.of(st).get(group) == null) {
                return Errors.bytes("-NOGROUP the consumer group this client was blocked on no longer exists\r\n");
            }
            return null;
        } finally {
            l.unlock();
        }
    }

    /**
     * Serves one stream under its key's lock: the consumer's history after {@code after}, or
     * with {@code after} null the group's new entries (recorded as pending unless NOACK).
     *
     * @return its part of the reply (history always has one), or null if there is nothing new
     */
    private Found read(int db, KeyValueStore store, Options x, byte[] key, StreamId after) {
        Lock l = store.lock(key);
        l.lock();
        boolean created;
        Found out;
        try {
            StreamGroups.Target t = StreamGroups.Target.of(store, key, x.group());
            if (t == null) {
                return null;   // gone since the check: answered as nothing new, as a waiter's attempt then tells
            }
            StoredStream s = t.stream();
            StreamGroups groups = t.groups();
            ConsumerGroup g = t.group();
            long now = ctx.now();
            List<StreamNode.Entry> fresh = List.of();
            if (after == null) {
                StreamId from = g.lastId.next();
                fresh = from == null || s.length() == 0 ? List.of()
                        : s.range(from, StreamId.MAX, x.count() == 0 ? -1 : x.count(), false);
                if (fresh.isEmpty()) {
                    return null;   // as 7.0: nothing to serve makes no consumer and changes nothing
                }
            }
            boolean[] made = {false};
            ConsumerGroup.Consumer consumer = g.consumer(x.consumer(), now, made);
            created = made[0];
            consumer.seenTime = now;
            List<Item> items = new ArrayList<>();
            if (after != null) {
                StreamId from = after.next();
                if (from != null) {
                    for (var it = g.pel.from(from); it.hasNext(); ) {
                        Map.Entry<StreamId, ConsumerGroup.Pending> e = it.next();
                        if (x.count() != 0 && items.size() >= x.count()) {
                            break;
                        }
                        if (e.getValue().consumer != consumer) {
                            continue;
                        }
                        StreamNode.Entry entry = PendingCommands.entry(s, e.getKey());
                        if (entry != null) {
                            e.getValue().deliveryTime = now;
                            e.getValue().deliveryCount++;
                        }
                        items.add(new Item(e.getKey(), entry));
                    }
                }
            } else {
                for (StreamNode.Entry e : fresh) {
                    GroupProgress.delivered(s, g, e.id());
                    if (!x.noAck()) {
                        g.pel.put(e.id(), new ConsumerGroup.Pending(consumer, now, 1));
                    }
                    items.add(new Item(e.id(), e));
                }
            }
            out = new Found(key, items);
            groups.save(g);
        } finally {
            l.unlock();
        }
        if (created) {
            ctx.events.fire(KeyspaceEvents.STREAM, "xgroup-createconsumer", db, key);
        }
        return out;
    }

    /** Writes the reply: a map of stream to entries in RESP3, an array of [stream, entries] pairs in RESP2. */
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
            r.array(f.items().size());
            for (Item i : f.items()) {
                if (i.entry() != null) {
                    StreamCommands.entry(r, i.entry());
                } else {
                    r.array(2);
                    r.bulk(i.id().bytes());
                    r.nullArray();
                }
            }
        }
    }

    /** @return what {@code body} writes, as bytes in {@code protocol}, for a waiter's loop to send (XREAD's too) */
    static byte[] resp(int protocol, Consumer<Reply> body) {
        Reply r = new Reply();
        r.protocol = protocol;
        r.open(256);
        try {
            body.accept(r);
            ByteBuffer b = r.pending(0);
            byte[] out = new byte[b.remaining()];
            b.get(out);
            return out;
        } finally {
            r.close();
        }
    }
}
