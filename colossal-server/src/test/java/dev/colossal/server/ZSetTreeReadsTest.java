package dev.colossal.server;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A big sorted set's reads searched in its stored nodes' bytes ({@link ZSetTreeReads}, through
 * {@link StoredZSet#view}) against the set they were built from: members of every length up to
 * past a node's bytes and across the varint's length steps, members that are prefixes of each
 * other and bytes above 0x7F, equal scores, -0 beside 0, and both infinities, in trees of four
 * entries a node and of 128 (ranks, walks from a rank and from a score); and a damaged leaf read
 * as damage, never from the bytes a node read before it left in the reused buffer.
 */
class ZSetTreeReadsTest {

    private static final double[] SCORES = {0.0, -0.0, 1, 1, 1, Double.POSITIVE_INFINITY, Double.NEGATIVE_INFINITY, 2.5, -3, 1e-300, 0.0};
    private static final String[] SCORE_BOUNDS = {"-inf", "+inf", "0", "(0", "-0", "1", "(1", "2.5", "(2.5", "inf", "(inf", "(-inf", "-3", "1e-300"};

    @TempDir
    Path dir;

    @Test
    void membersOfEveryLengthAndEqualScoresReadInPlaceAsTheSetHoldsThem() throws Exception {
        List<byte[]> members = new ArrayList<>();
        for (int len = 0; len <= 140; len++) {
            members.add(run('a', len, -1)); // each a prefix of the next
        }
        for (int len = 1; len <= 40; len++) {
            members.add(run('a', len, 0xFF)); // sorts after every longer run of a's: unsigned bytes
            members.add(run('a', len, 'b'));
        }
        for (int len : new int[] {126, 127, 128, 129, 130, 4060, 4070, 4080, 4085, 4090, 4095, 4100, 16383, 16384, 16385}) {
            members.add(run('c', len, -1)); // the varint's 1-2 and 2-3 byte steps, and a node's bytes
        }
        double[] scores = new double[members.size()];
        for (int i = 0; i < scores.length; i++) {
            scores[i] = SCORES[i % SCORES.length];
        }
        for (long entries : new long[] {4, 128}) {
            try (Databases dbs = Databases.open(dir.resolve("s" + entries), 1, 0, System::currentTimeMillis)) {
                KeyValueStore store = dbs.opened(0);
                ZSetValue z = saved(store, "z", scores, members, entries);
                StoredZSet view = view(store, "z");
                for (int i = 0; i < z.size(); i++) {
                    assertEquals(z.score(i), view.scoreOf(z.member(i)), "score of member " + i + " (bits: -0 stays -0)");
                    assertEquals(i, view.rankOf(z.member(i)), "rank of member " + i);
                    for (boolean reverse : new boolean[] {false, true}) {
                        assertArrayEquals(expected(z, i, reverse, 3), walked(view, i, reverse, 3), "walk from " + i + " reverse " + reverse);
                    }
                }
                for (String absent : new String[] {"b", "aac", "c", "\u00ff", "a".repeat(141), "c".repeat(16386), "0"}) {
                    byte[] m = absent.getBytes(StandardCharsets.ISO_8859_1);
                    assertNull(view.scoreOf(m), absent);
                    assertEquals(-1, view.rankOf(m), absent);
                }
                assertEquals(0, walked(view, z.size(), false, 3).length, "past the last");
                assertEquals(0, walked(view, -1, true, 3).length, "before the first");
                assertArrayEquals(expected(z, 0, false, z.size()), walked(view, 0, false, z.size() + 5), "the whole set");
                sameRanks(z, view, List.of(SCORE_BOUNDS), ZRange::byScore);
                for (double min : new double[] {Double.NEGATIVE_INFINITY, -3.5, -3, -0.0, 0, 1e-300, 0.5, 1, 2.5, 3, Double.POSITIVE_INFINITY}) {
                    int first = 0;
                    while (first < z.size() && z.score(first) < min) {
                        first++;
                    }
                    for (int n : new int[] {1, 3, z.size()}) {
                        assertArrayEquals(expected(z, first, false, n), fromScore(view, min, n), "from score " + min + ", " + n);
                    }
                }
            }
        }
    }

    /** @return up to {@code n} entries from the first scored {@code min} or more, as "score member" lines */
    private static String[] fromScore(StoredZSet view, double min, int n) {
        List<String> out = new ArrayList<>();
        view.walkFromScore(min, (s, m) -> {
            out.add(s + " " + Arrays.toString(m));
            return out.size() < n;
        });
        return out.toArray(String[]::new);
    }

    @Test
    void lexRangesOverMembersThatArePrefixesOfEachOtherReadInPlace() throws Exception {
        List<byte[]> members = new ArrayList<>();
        for (int len = 0; len <= 30; len++) {
            members.add(run('a', len, -1));
            members.add(run('a', len, 'b'));
            members.add(run('a', len, 0xFF));
        }
        List<String> bounds = new ArrayList<>(List.of("-", "+", "[", "(", "[b", "(b", "[\u00ff", "(\u00ff"));
        for (int len = 0; len <= 31; len += 3) {
            bounds.add("[" + "a".repeat(len));
            bounds.add("(" + "a".repeat(len));
            bounds.add("[" + "a".repeat(len) + "b");
            bounds.add("(" + "a".repeat(len) + "\u00ff");
        }
        try (Databases dbs = Databases.open(dir, 1, 0, System::currentTimeMillis)) {
            KeyValueStore store = dbs.opened(0);
            ZSetValue z = saved(store, "lex", new double[members.size()], members, 4);
            StoredZSet view = view(store, "lex");
            sameRanks(z, view, bounds, ZRange::byLex);
        }
    }

    @Test
    void aDamagedLeafIsDamageNotTheBytesOfTheLeafReadBeforeIt() throws Exception {
        try (Databases dbs = Databases.open(dir, 1, 0, System::currentTimeMillis)) {
            KeyValueStore store = dbs.opened(0);
            List<byte[]> members = new ArrayList<>();
            double[] scores = new double[100];
            for (int i = 0; i < 100; i++) {
                members.add(("m" + i).getBytes(StandardCharsets.US_ASCII));
                scores[i] = i;
            }
            saved(store, "z", scores, members, 4);
            byte[] key = "z".getBytes(StandardCharsets.US_ASCII);
            KeyValueStore.Entry e = store.get(key);
            long id = ZSetTreeLayout.get(e, ZSetTreeLayout.ID_OFFSET);
            ListElements elements = store.elements(false);
            byte[] last = members.getLast(); // the highest in either order: the last entry of both trees' last leaves
            for (int root : new int[] {ZSetTreeLayout.MEMBER_ROOT_OFFSET, ZSetTreeLayout.SCORE_ROOT_OFFSET}) {
                long pos = ZSetTreeLayout.get(e, root);
                ZSetNode node = ZSetNode.decode(elements.get(id, pos), pos);
                while (!node.leaf) {
                    pos = node.children[node.n - 1];
                    node = ZSetNode.decode(elements.get(id, pos), pos);
                }
                assertArrayEquals(last, node.members[node.n - 1]);
                byte[] leaf = elements.get(id, pos);
                byte[] cut = Arrays.copyOf(leaf, leaf.length - 1);
                byte[] more = leaf.clone();
                more[ZSetTreeLayout.N_OFFSET]++; // one entry more than the bytes hold
                for (byte[] damaged : new byte[][] {cut, more}) {
                    elements.put(id, pos, leaf);
                    assertEquals(99.0, read(store, root, last), "read whole: the buffer holds it");
                    elements.put(id, pos, damaged);
                    IllegalStateException x = assertThrows(IllegalStateException.class, () -> read(store, root, last));
                    assertTrue(x.getMessage().contains("a stored sorted set is damaged"), x.getMessage());
                }
            }
        }
    }

    /** @return the score of {@code last} read through the tree at {@code root}: ZSCORE's search, or a walk from the last rank */
    private static double read(KeyValueStore store, int root, byte[] last) {
        StoredZSet view = view(store, "z");
        if (root == ZSetTreeLayout.MEMBER_ROOT_OFFSET) {
            return view.scoreOf(last);
        }
        double[] got = {Double.NaN};
        view.walk(view.count() - 1, false, (s, m) -> {
            assertArrayEquals(last, m);
            got[0] = s;
            return false;
        });
        return got[0];
    }

    /** @return {@code len} bytes of {@code c}, then {@code last} if not -1 */
    private static byte[] run(char c, int len, int last) {
        byte[] b = new byte[len + (last < 0 ? 0 : 1)];
        Arrays.fill(b, 0, len, (byte) c);
        if (last >= 0) {
            b[len] = (byte) last;
        }
        return b;
    }

    /** Stores the set under {@code key} as a tree of nodes of {@code entries} entries; @return it, in order */
    private static ZSetValue saved(KeyValueStore store, String key, double[] scores, List<byte[]> members, long entries) {
        ZSetValue z = ZSetValue.built(scores, members.toArray(byte[][]::new), members.size(), ZSetLayout.SKIPLIST);
        StoredZSet.save(store, key.getBytes(StandardCharsets.US_ASCII), z, StoredValue.NO_EXPIRY, entries);
        return z;
    }

    private static StoredZSet view(KeyValueStore store, String key) {
        byte[] k = key.getBytes(StandardCharsets.US_ASCII);
        KeyValueStore.Entry e = store.get(k);
        assertTrue(ZSetTreeLayout.isTree(e), "a tree");
        return StoredZSet.view(store, k, e);
    }

    /** @return up to {@code n} entries from rank {@code from} as "score member" lines */
    private static String[] walked(StoredZSet view, long from, boolean reverse, int n) {
        List<String> out = new ArrayList<>();
        view.walk(from, reverse, (s, m) -> {
            out.add(s + " " + Arrays.toString(m));
            return out.size() < n;
        });
        return out.toArray(String[]::new);
    }

    private static String[] expected(ZSetValue z, int from, boolean reverse, int n) {
        List<String> out = new ArrayList<>();
        for (int i = from; i >= 0 && i < z.size() && out.size() < n; i += reverse ? -1 : 1) {
            out.add(z.score(i) + " " + Arrays.toString(z.member(i)));
        }
        return out.toArray(String[]::new);
    }

    /** Asserts that every range of two of {@code bounds} (as {@code parse} reads them) holds the same ranks of {@code view} as of {@code z}. */
    private static void sameRanks(ZSetValue z, StoredZSet view, List<String> bounds, java.util.function.BiFunction<byte[], byte[], ZRange> parse) {
        for (String min : bounds) {
            for (String max : bounds) {
                ZRange r = parse.apply(min.getBytes(StandardCharsets.ISO_8859_1), max.getBytes(StandardCharsets.ISO_8859_1));
                assertArrayEquals(ranks(z, r), nonEmpty(view.ranks(r)), "range " + min + " " + max);
            }
        }
    }

    /** @return {@code ranks}, or {0, 0} for an empty range wherever it is */
    private static long[] nonEmpty(long[] ranks) {
        return ranks[1] > ranks[0] ? ranks : new long[] {0, 0};
    }

    /** @return the ranks {@code [from, to)} of the entries in {@code r}, counted one by one */
    private static long[] ranks(ZSetValue z, ZRange r) {
        int from = 0;
        while (from < z.size() && !r.aboveMin(z.score(from), z.member(from), 0, z.member(from).length)) {
            from++;
        }
        int to = from;
        while (to < z.size() && r.belowMax(z.score(to), z.member(to), 0, z.member(to).length)) {
            to++;
        }
        return to > from ? new long[] {from, to} : new long[] {0, 0};
    }
}
