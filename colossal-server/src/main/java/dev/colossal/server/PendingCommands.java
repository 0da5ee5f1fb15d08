package dev.colossal.server;

import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.Set;
import java.util.concurrent.locks.Lock;

/**
 * The commands on a group's pending entries list, with Redis 7.0's replies, errors and order of
 * checks: XACK, XPENDING (summary and extended forms), XCLAIM and XAUTOCLAIM. Each holds the
 * key's lock around the stream and saves the one group it changed ({@link StreamGroups#save}).
 * XCLAIM and XAUTOCLAIM drop pending entries whose stream entry was deleted, as 7.0 does; like
 * 7.0 they fire no keyspace event of their own (a consumer they make fires xgroup-createconsumer).
 */
final class PendingCommands {

    private final ServerContext ctx;

    PendingCommands(ServerContext ctx) {
        this.ctx = ctx;
    }

    void register(CommandTable t) {
        t.add("xack", -4, List.of("write", "fast"), 1, 1, 1, this::xack);
        t.add("xpending", -3, List.of("readonly"), 1, 1, 1, this::xpending);
        t.add("xclaim", -6, List.of("write", "fast"), 1, 1, 1, this::xclaim);
        t.add("xautoclaim", -6, List.of("write", "fast"), 1, 1, 1, this::xautoclaim);
    }

    static String noGroup(byte[] key, byte[] group) {
        return "NOGROUP No such key '" + Errors.text(key) + "' or consumer group '" + Errors.text(group) + "'";
    }

    private void xack(Client c, byte[][] a, Reply r) {
        KeyValueStore store = ctx.db(c);
        Lock l = store.lock(a[1]);
        l.lock();
        try {
            StreamGroups.Target t = StreamGroups.Target.of(store, a[1], a[2]);
            StoredStream s = t == null ? null : t.stream();
            StreamGroups groups = t == null ? null : t.groups();
            ConsumerGroup g = t == null ? null : t.group();
            if (g == null) {
                r.integer(0);
                return;
            }
            Set<StreamId> ids = new LinkedHashSet<>();
            for (int j = 3; j < a.length; j++) {
                StreamId id = StreamId.parse(a[j], 0, true);
                if (id == null) {
                    r.error(StreamId.INVALID);
                    return;
                }
                ids.add(id);
            }
            long acked = 0;
            for (StreamId id : ids) {
                acked += g.pel.remove(id) != null ? 1 : 0;
            }
            if (acked > 0) {
                groups.save(g);
            }
            r.integer(acked);
        } finally {
            l.unlock();
        }
    }

    private void xpending(Client c, byte[][] a, Reply r) {
        boolean summary = a.length == 3;
        if (!summary && (a.length < 6 || a.length > 9)) {
            r.error(Errors.SYNTAX);
            return;
        }
        long minIdle = 0;
        long count = 0;
        StreamId start = null;
        StreamId end = null;
        byte[] consumerName = null;
        if (!summary) {
            int at = 3;
            if (Args.is(a[3], "IDLE")) {
                OptionalLong v = Args.toLong(a[4]);
                if (v.isEmpty()) {
                    r.error(Errors.NOT_INTEGER);
                    return;
                }
                minIdle = v.getAsLong();
                if (a.length < 8) {
                    r.error(Errors.SYNTAX);
                    return;
                }
                at += 2;
            }
            OptionalLong v = Args.toLong(a[at + 2]);
            if (v.isEmpty()) {
                r.error(Errors.NOT_INTEGER);
                return;
            }
            count = Math.max(0, v.getAsLong());
            start = StreamCommands.bound(a[at], 0, true, r);
            if (start == null) {
                return;
            }
            end = StreamCommands.bound(a[at + 1], -1L, false, r);
            if (end == null) {
                return;
            }
            if (at + 3 < a.length) {
                consumerName = a[at + 3];
            }
        }
        KeyValueStore store = ctx.db(c);
        Lock l = store.lock(a[1]);
        l.lock();
        try {
            StreamGroups.Target t = StreamGroups.Target.of(store, a[1], a[2]);
            ConsumerGroup g = t == null ? null : t.group();
            if (g == null) {
                r.error(noGroup(a[1], a[2]));
                return;
            }
            if (summary) {
                summary(g, r);
                return;
            }
            ConsumerGroup.Consumer only = null;
            if (consumerName != null) {
                only = g.consumers.get(consumerName);
                if (only == null) {
                    r.array(0);
                    return;
                }
            }
            long now = ctx.now();
            List<Map.Entry<StreamId, ConsumerGroup.Pending>> out = new ArrayList<>();
            if (start.compareTo(end) <= 0) {
                for (var it = g.pel.view(start); it.hasNext(); ) {
                    var e = it.next();
                    if (out.size() >= count || e.getKey().compareTo(end) > 0) {
                        break;
                    }
                    ConsumerGroup.Pending p = e.getValue();
                    if ((only != null && p.consumer != only) || (minIdle != 0 && now - p.deliveryTime < minIdle)) {
                        continue;
                    }
                    out.add(e);
                }
            }
            r.array(out.size());
            for (var e : out) {
                ConsumerGroup.Pending p = e.getValue();
                r.array(4);
                r.bulk(e.getKey().bytes());
                r.bulk(p.consumer.name);
                r.integer(Math.max(0, now - p.deliveryTime));
                r.integer(p.deliveryCount);
            }
        } finally {
            l.unlock();
        }
    }

    private static void summary(ConsumerGroup g, Reply r) {
        r.array(4);
        r.integer(g.pel.size());
        if (g.pel.isEmpty()) {
            r.nullBulk();
            r.nullBulk();
            r.nullArray();
            return;
        }
        r.bulk(g.pel.firstKey().bytes());
        r.bulk(g.pel.lastKey().bytes());
        List<ConsumerGroup.Consumer> with = new ArrayList<>();
        for (ConsumerGroup.Consumer k : g.consumers.values()) {
            if (k.pending > 0) {
                with.add(k);
            }
        }
        r.array(with.size());
        for (ConsumerGroup.Consumer k : with) {
            r.array(2);
            r.bulk(k.name);
            r.bulk(Long.toString(k.pending));
        }
    }

    /** A claim's work on its group, under the key's lock. */
    @FunctionalInterface
    private interface Claim {
        /** @return whether it made the consumer */
        boolean run(StoredStream s, StreamGroups groups, ConsumerGroup g);
    }

    /** Runs {@code claim} on the group {@code a[2]} of stream {@code a[1]} under its lock, or answers NOGROUP. */
    private void claiming(Client c, byte[][] a, Reply r, Claim claim) {
        KeyValueStore store = ctx.db(c);
        Lock l = store.lock(a[1]);
        l.lock();
        boolean createdConsumer;
        try {
            StreamGroups.Target t = StreamGroups.Target.of(store, a[1], a[2]);
            if (t == null) {
                r.error(noGroup(a[1], a[2]));
                return;
            }
            createdConsumer = claim.run(t.stream(), t.groups(), t.group());
        } finally {
            l.unlock();
        }
        if (createdConsumer) {
            ctx.events.fire(KeyspaceEvents.STREAM, "xgroup-createconsumer", c.db, a[1]);
        }
    }

    private void xclaim(Client c, byte[][] a, Reply r) {
        claiming(c, a, r, (s, groups, g) -> {
            OptionalLong idle = Args.toLong(a[4]);
            if (idle.isEmpty()) {
                r.error("ERR Invalid min-idle-time argument for XCLAIM");
                return false;
            }
            long minIdle = Math.max(0, idle.getAsLong());
            int j = 5;
            List<StreamId> ids = new ArrayList<>();
            for (; j < a.length; j++) {
                StreamId id = StreamId.parse(a[j], 0, true);
                if (id == null) {
                    break;
                }
                ids.add(id);
            }
            long now = ctx.now();
            long deliveryTime = -1;
            long retryCount = -1;
            boolean force = false;
            boolean justId = false;
            StreamId lastId = StreamId.MIN;
            for (; j < a.length; j++) {
                boolean more = j + 1 < a.length;
                if (Args.is(a[j], "FORCE")) {
                    force = true;
                } else if (Args.is(a[j], "JUSTID")) {
                    justId = true;
                } else if (more && (Args.is(a[j], "IDLE") || Args.is(a[j], "TIME") || Args.is(a[j], "RETRYCOUNT"))) {
                    String opt = Args.lower(a[j]).toUpperCase(java.util.Locale.ROOT);
                    OptionalLong v = Args.toLong(a[++j]);
                    if (v.isEmpty()) {
                        r.error("ERR Invalid " + opt + " option argument for XCLAIM");
                        return false;
                    }
                    switch (opt) {
                        case "IDLE" -> deliveryTime = now - v.getAsLong();
                        case "TIME" -> deliveryTime = v.getAsLong();
                        default -> retryCount = v.getAsLong();
                    }
                } else if (more && Args.is(a[j], "LASTID")) {
                    lastId = StreamId.parse(a[++j], 0, true);
                    if (lastId == null) {
                        r.error(StreamId.INVALID);
                        return false;
                    }
                } else {
                    r.error("ERR Unrecognized XCLAIM option '" + Errors.text(a[j]) + "'");
                    return false;
                }
            }
            boolean changed = false;
            if (lastId.compareTo(g.lastId) > 0) {
                g.lastId = lastId;
                changed = true;
            }
            if (deliveryTime < 0 || deliveryTime > now) {
                deliveryTime = now;
            }
            ConsumerGroup.Consumer to = null;
            boolean[] created = {false};
            List<Object> replies = new ArrayList<>();
            for (StreamId id : ids) {
                ConsumerGroup.Pending p = g.pel.get(id);
                StreamNode.Entry e = entry(s, id);
                if (e == null) {
                    if (p != null) {
                        g.pel.remove(id);
                        changed = true;
                    }
                    continue;
                }
                if (force && p == null) {
                    p = new ConsumerGroup.Pending(null, now, 1);
                    g.pel.put(id, p);
                } else if (p == null || (minIdle != 0 && now - p.deliveryTime < minIdle)) {
                    continue;
                }
                to = claim(g, p, to, a[3], now, created);
                p.deliveryTime = deliveryTime;
                if (retryCount >= 0) {
                    p.deliveryCount = retryCount;
                } else if (!justId) {
                    p.deliveryCount++;
                }
                replies.add(justId ? id : e);
                changed = true;
            }
            if (changed) {
                groups.save(g);
            }
            claimed(r, replies);
            return created[0];
        });
    }

    /**
     * Gives pending entry {@code p} to consumer {@code name}: {@code to} once a claim found it, else
     * looked up or made (and {@code created[0]} set), seen {@code now}.
     *
     * @return the consumer
     */
    private static ConsumerGroup.Consumer claim(ConsumerGroup g, ConsumerGroup.Pending p, ConsumerGroup.Consumer to,
                                                byte[] name, long now, boolean[] created) {
        if (to == null) {
            to = g.consumer(name, now, created);
            to.seenTime = now;
        }
        p.moveTo(to);
        return to;
    }

    /** Writes what XCLAIM or XAUTOCLAIM claimed: IDs (JUSTID) or entries. */
    private static void claimed(Reply r, List<Object> claimed) {
        r.array(claimed.size());
        for (Object o : claimed) {
            if (o instanceof StreamId id) {
                r.bulk(id.bytes());
            } else {
                StreamCommands.entry(r, (StreamNode.Entry) o);
            }
        }
    }

    /** @return the live entry {@code id} of {@code s}, or null */
    static StreamNode.Entry entry(StoredStream s, StreamId id) {
        List<StreamNode.Entry> es = s.range(id, id, 1, false);
        return es.isEmpty() ? null : es.getFirst();
    }

    private void xautoclaim(Client c, byte[][] a, Reply r) {
        OptionalLong idle = Args.toLong(a[4]);
        if (idle.isEmpty()) {
            r.error("ERR Invalid min-idle-time argument for XAUTOCLAIM");
            return;
        }
        long minIdle = Math.max(0, idle.getAsLong());
        StreamId start = StreamCommands.bound(a[5], 0, true, r);
        if (start == null) {
            return;
        }
        long count = 100;
        boolean justId = false;
        for (int j = 6; j < a.length; j++) {
            if (Args.is(a[j], "COUNT") && j + 1 < a.length) {
                OptionalLong v = Args.toLong(a[++j]);
                if (v.isEmpty() || v.getAsLong() < 1 || v.getAsLong() > Long.MAX_VALUE / 16) {
                    r.error("ERR COUNT must be > 0");
                    return;
                }
                count = v.getAsLong();
            } else if (Args.is(a[j], "JUSTID")) {
                justId = true;
            } else {
                r.error(Errors.SYNTAX);
                return;
            }
        }
        long limit = count;
        boolean onlyIds = justId;
        claiming(c, a, r, (s, groups, g) -> {
            long left = limit;
            long attempts = limit * 10;
            long now = ctx.now();
            ConsumerGroup.Consumer to = null;
            boolean[] created = {false};
            List<Object> claimed = new ArrayList<>();
            List<StreamId> deleted = new ArrayList<>();
            StreamId cursor = StreamId.MIN;
            boolean changed = false;
            var it = g.pel.from(start);
            while (attempts > 0 && left > 0 && it.hasNext()) {
                attempts--;
                var pe = it.next();
                StreamId id = pe.getKey();
                ConsumerGroup.Pending p = pe.getValue();
                StreamNode.Entry e = entry(s, id);
                if (e == null) {
                    it.remove();
                    deleted.add(id);
                    left--;
                    changed = true;
                    continue;
                }
                if (minIdle != 0 && now - p.deliveryTime < minIdle) {
                    continue;
                }
                to = claim(g, p, to, a[3], now, created);
                p.deliveryTime = now;
                if (!onlyIds) {
                    p.deliveryCount++;
                }
                claimed.add(onlyIds ? id : e);
                left--;
                changed = true;
            }
            if (it.hasNext()) {
                cursor = it.next().getKey();
            }
            if (changed) {
                groups.save(g);
            }
            r.array(3);
            r.bulk(cursor.bytes());
            claimed(r, claimed);
            r.array(deleted.size());
            deleted.forEach(id -> r.bulk(id.bytes()));
            return created[0];
        });
    }
}
