package dev.colossal.server;

import java.util.List;
import java.util.Map;

/**
 * XINFO GROUPS, XINFO CONSUMERS and the groups part of XINFO STREAM FULL, as Redis 7.0 answers
 * them (7.0's fields: no inactive or active-time, which came with 7.2).
 */
final class GroupInfo {

    private GroupInfo() {}

    static void groups(StoredStream s, Reply r) {
        List<ConsumerGroup> all = StreamGroups.of(s).all();
        r.array(all.size());
        for (ConsumerGroup g : all) {
            r.map(6);
            r.bulk("name");
            r.bulk(g.name);
            r.bulk("consumers");
            r.integer(g.consumers.size());
            r.bulk("pending");
            r.integer(g.pel.size());
            r.bulk("last-delivered-id");
            r.bulk(g.lastId.bytes());
            progress(s, g, r);
        }
    }

    /** Writes entries-read and lag, nil where they cannot be told. */
    private static void progress(StoredStream s, ConsumerGroup g, Reply r) {
        r.bulk("entries-read");
        if (g.entriesRead == ConsumerGroup.ENTRIES_READ_UNKNOWN) {
            r.nullBulk();
        } else {
            r.integer(g.entriesRead);
        }
        r.bulk("lag");
        Long lag = GroupProgress.lag(s, g);
        if (lag == null) {
            r.nullBulk();
        } else {
            r.integer(lag);
        }
    }

    /** XINFO CONSUMERS key group ({@code a[3]}): name, pending and idle of each consumer. */
    static void consumers(StoredStream s, byte[][] a, long now, Reply r) {
        ConsumerGroup g = StreamGroups.of(s).get(a[3]);
        if (g == null) {
            r.error("NOGROUP No such consumer group '" + Errors.text(a[3]) + "' for key name '" + Errors.text(a[2]) + "'");
            return;
        }
        r.array(g.consumers.size());
        for (ConsumerGroup.Consumer c : g.consumers.values()) {
            r.map(3);
            r.bulk("name");
            r.bulk(c.name);
            r.bulk("pending");
            r.integer(c.pending);
            r.bulk("idle");
            r.integer(Math.max(0, now - c.seenTime));
        }
    }

    /** XINFO STREAM FULL's groups: each with its PEL and consumers, PELs cut to {@code count} (0: all). */
    static void full(StoredStream s, long count, Reply r) {
        List<ConsumerGroup> all = StreamGroups.of(s).all();
        r.array(all.size());
        for (ConsumerGroup g : all) {
            r.map(7);
            r.bulk("name");
            r.bulk(g.name);
            r.bulk("last-delivered-id");
            r.bulk(g.lastId.bytes());
            progress(s, g, r);
            r.bulk("pel-count");
            r.integer(g.pel.size());
            r.bulk("pending");
            int n = (int) (count == 0 ? g.pel.size() : Math.min(count, g.pel.size()));
            r.array(n);
            int i = 0;
            for (Map.Entry<StreamId, ConsumerGroup.Pending> e : g.pel.entries()) {
                if (i++ == n) {
                    break;
                }
                r.array(4);
                r.bulk(e.getKey().bytes());
                r.bulk(e.getValue().consumer.name);
                r.integer(e.getValue().deliveryTime);
                r.integer(e.getValue().deliveryCount);
            }
            r.bulk("consumers");
            r.array(g.consumers.size());
            for (ConsumerGroup.Consumer c : g.consumers.values()) {
                r.map(4);
                r.bulk("name");
                r.bulk(c.name);
                r.bulk("seen-time");
                r.integer(c.seenTime);
                long pending = c.pending;
                r.bulk("pel-count");
                r.integer(pending);
                r.bulk("pending");
                int m = (int) (count == 0 ? pending : Math.min(count, pending));
                r.array(m);
                int j = 0;
                for (Map.Entry<StreamId, ConsumerGroup.Pending> e : g.pel.entries()) {
                    if (j == m) {
                        break;
                    }
                    if (e.getValue().consumer == c) {
                        j++;
                        r.array(3);
                        r.bulk(e.getKey().bytes());
                        r.integer(e.getValue().deliveryTime);
                        r.integer(e.getValue().deliveryCount);
                    }
                }
            }
        }
    }
}
