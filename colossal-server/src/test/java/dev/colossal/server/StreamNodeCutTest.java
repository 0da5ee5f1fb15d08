package dev.colossal.server;

import static java.nio.charset.StandardCharsets.US_ASCII;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/**
 * {@link StreamNode#cut}, the walk an exact MAXLEN trim makes over the first node without
 * decoding it, against the same cut read off {@link StreamNode#entries}: nodes with deleted
 * entries anywhere, IDs crossing milliseconds, every head skip and every number to drop.
 */
class StreamNodeCutTest {

    @Test
    void theCutPassesDeletedEntriesUpToTheLastDroppedLiveOneAndNamesTheNextLive() {
        SplittableRandom r = new SplittableRandom(34);
        for (int round = 0; round < 200; round++) {
            byte[] node = randomNode(r, 1 + r.nextInt(30));
            List<StreamNode.Entry> all = StreamNode.entries(node);
            for (int skip = 0; skip <= all.size(); skip++) {
                List<StreamNode.Entry> after = all.subList(skip, all.size());
                long live = after.stream().filter(e -> !e.deleted()).count();
                for (long drop = 1; drop <= live + 1; drop++) {
                    StreamNode.Cut cut = StreamNode.cut(node, skip, drop);
                    if (drop > live) {
                        assertNull(cut, "fewer live entries than " + drop);
                        continue;
                    }
                    long seen = 0;
                    int passed = 0;
                    while (seen < drop) {
                        seen += after.get(passed++).deleted() ? 0 : 1;
                    }
                    StreamId next = null;
                    for (int i = passed; i < after.size() && next == null; i++) {
                        next = after.get(i).deleted() ? null : after.get(i).id();
                    }
                    String at = "round " + round + " skip " + skip + " drop " + drop;
                    assertEquals(passed, cut.passed(), at);
                    assertEquals(next, cut.nextLive(), at);
                }
            }
        }
    }

    /** @return a node of {@code n} entries with IDs rising within and across milliseconds, about a third deleted */
    private static byte[] randomNode(SplittableRandom r, int n) {
        StreamId id = new StreamId(1_700_000_000_000L + r.nextInt(1000), r.nextInt(5));
        byte[] node = null;
        List<Integer> flags = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            byte[][] fv = new byte[2 * (1 + r.nextInt(3))][];
            for (int k = 0; k < fv.length; k++) {
                fv[k] = ("v" + r.nextInt(1 << (r.nextInt(20) + 1))).getBytes(US_ASCII);
            }
            node = node == null ? StreamNode.create(id, fv, 0, fv.length) : StreamNode.append(node, id, fv, 0, fv.length);
            id = r.nextBoolean() ? new StreamId(id.ms(), id.seq() + 1 + r.nextInt(3)) : new StreamId(id.ms() + 1 + r.nextInt(200), r.nextInt(4));
        }
        for (StreamNode.Entry e : StreamNode.entries(node)) {
            if (r.nextInt(3) == 0) {
                flags.add(e.flagsAt());
            }
        }
        for (int at : flags) {
            node = StreamNode.delete(node, at);
        }
        return node;
    }
}
