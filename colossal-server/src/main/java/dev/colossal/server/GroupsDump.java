package dev.colossal.server;

import dev.colossal.rdb.RdbStreams;
import java.util.ArrayList;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;

/** Turns a stream's consumer groups into a dump's ({@link RdbStreams.Group}) and back, for DUMP, RESTORE and import-rdb. */
final class GroupsDump {

    private GroupsDump() {}

    static List<RdbStreams.Group> of(List<ConsumerGroup> groups) {
        List<RdbStreams.Group> out = new ArrayList<>(groups.size());
        for (ConsumerGroup g : groups) {
            Map<ConsumerGroup.Consumer, List<RdbStreams.Pending>> mine = new IdentityHashMap<>();
            List<RdbStreams.Pending> pel = new ArrayList<>((int) Math.min(g.pel.size(), 1 << 20));
            for (var e : g.pel.entries()) {
                ConsumerGroup.Pending p = e.getValue();
                RdbStreams.Pending d = new RdbStreams.Pending(e.getKey().ms(), e.getKey().seq(), p.deliveryTime,
                        p.deliveryCount);
                pel.add(d);
                mine.computeIfAbsent(p.consumer, k -> new ArrayList<>()).add(d);
            }
            List<RdbStreams.Consumer> consumers = new ArrayList<>(g.consumers.size());
            for (ConsumerGroup.Consumer c : g.consumers.values()) {
                consumers.add(new RdbStreams.Consumer(c.name, c.seenTime, mine.getOrDefault(c, List.of())));
            }
            out.add(new RdbStreams.Group(g.name, g.lastId.ms(), g.lastId.seq(), g.entriesRead, pel, consumers));
        }
        return out;
    }

    static List<ConsumerGroup> from(List<RdbStreams.Group> dumped) {
        List<ConsumerGroup> out = new ArrayList<>(dumped.size());
        for (RdbStreams.Group d : dumped) {
            ConsumerGroup g = new ConsumerGroup(d.name(), new StreamId(d.lastMs(), d.lastSeq()), d.entriesRead());
            for (RdbStreams.Consumer dc : d.consumers()) {
                ConsumerGroup.Consumer c = g.add(new ConsumerGroup.Consumer(g.nextNumber, dc.name(), dc.seenTime()));
                for (RdbStreams.Pending p : dc.pending()) {
                    g.pel.put(new StreamId(p.ms(), p.seq()), new ConsumerGroup.Pending(c, p.deliveryTime(), p.deliveryCount()));
                }
            }
            out.add(g);
        }
        return out;
    }
}
