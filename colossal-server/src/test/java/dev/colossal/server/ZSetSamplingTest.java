package dev.colossal.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.params.ScanParams;
import redis.clients.jedis.resps.ScanResult;
import redis.clients.jedis.resps.Tuple;

/**
 * ZSCAN and ZRANDMEMBER with a count on big sorted sets (trees), which read a step's or a pick's
 * members rather than the whole set: SCAN's promise kept while members come, go and change score
 * between steps, with two scans interleaved; ZRANDMEMBER's counts, distinctness, score pairing and
 * spread over the ranks; and the reply shapes beside redis-server's.
 */
class ZSetSamplingTest {

    @TempDir
    Path dir;

    @Test
    void zscanReturnsEveryMemberPresentThroughoutWithItsScoreNowWhileTheSetChanges() throws Exception {
        try (ColossalServer s = TestServers.colossal(dir); Jedis j = new Jedis("127.0.0.1", s.port())) {
            Map<String, Double> now = new HashMap<>();
            Map<String, Double> start = new HashMap<>();
            for (int i = 0; i < 5000; i++) {
                start.put("m:" + i, i / 3.0);
            }
            j.zadd("big", start);
            now.putAll(start);
            assertEquals("skiplist", j.objectEncoding("big"));
            SplittableRandom random = new SplittableRandom(28);
            Set<String> goneOriginals = new HashSet<>();
            String[] cursors = {"0", null};
            List<List<String>> got = List.of(new ArrayList<>(), new ArrayList<>());
            Set<String> everIn = new HashSet<>(start.keySet());
            Set<String> presentAtSecondStart = null;
            int steps = 0;
            while (cursors[0] != null || cursors[1] != null) {
                for (int scan = 0; scan < 2; scan++) {
                    if (cursors[scan] == null) {
                        continue;
                    }
                    int count = scan == 0 ? 10 : 97;
                    ScanResult<Tuple> page = j.zscan("big", cursors[scan], new ScanParams().count(count));
                    assertTrue(page.getResult().size() <= count + 2, "a step answers about COUNT members: " + page.getResult().size());
                    for (Tuple t : page.getResult()) {
                        assertNotNull(now.get(t.getElement()), "returned a member not in the set: " + t.getElement());
                        assertEquals(now.get(t.getElement()), t.getScore(), "the score now of " + t.getElement());
                        got.get(scan).add(t.getElement());
                    }
                    cursors[scan] = page.getCursor().equals("0") ? null : page.getCursor();
                }
                // Between steps: new members come, some go, originals go or change score
                for (int k = 0; k < 3; k++) {
                    String m = "new:" + steps + ":" + k;
                    j.zadd("big", steps, m);
                    now.put(m, (double) steps);
                    everIn.add(m);
                }
                if (steps > 0) {
                    j.zrem("big", "new:" + (steps - 1) + ":0");
                    now.remove("new:" + (steps - 1) + ":0");
                }
                String victim = "m:" + random.nextInt(5000);
                if (j.zrem("big", victim) == 1) {
                    now.remove(victim);
                    goneOriginals.add(victim);
                }
                String moved = "m:" + random.nextInt(5000);
                if (now.containsKey(moved)) {
                    now.put(moved, j.zincrby("big", 0.5, moved));
                }
                steps++;
                if (steps == 40) { // a second scan starts after the set changed: it must see what is there now
                    cursors[1] = "0";
                    presentAtSecondStart = new HashSet<>(now.keySet());
                }
            }
            assertTrue(steps > 400, "COUNT 10 over 5000 members takes hundreds of steps: " + steps);
            Set<String> throughout = new HashSet<>(start.keySet());
            throughout.removeAll(goneOriginals);
            List<String> firstOriginals = got.get(0).stream().filter(m -> m.startsWith("m:")).toList();
            assertEquals(new HashSet<>(firstOriginals).size(), firstOriginals.size(), "no member twice");
            assertTrue(new HashSet<>(firstOriginals).containsAll(throughout), "every member there throughout was returned");
            assertTrue(everIn.containsAll(got.get(0)));
            Set<String> second = new HashSet<>(got.get(1));
            assertEquals(second.size(), got.get(1).size(), "no member twice in the second scan");
            // What the second scan must return: what was there at its start and is still there
            presentAtSecondStart.retainAll(now.keySet());
            // (no member leaves and comes back here, so that is the members there throughout)
            assertTrue(second.containsAll(presentAtSecondStart), "the second scan returned every member there throughout it");
        }
    }

    @Test
    void scanOrderSortsPlacesThatShareTheirHighBitsOrRepeat() {
        SplittableRandom random = new SplittableRandom(7);
        for (int n : new int[] {1, 2, 3, 1000, 70_000}) {
            long[] place = new long[n];
            for (int i = 0; i < n; i++) {
                // three kinds: spread over 62 bits, differing in the low 16 bits only, and repeated
                place[i] = switch (i % 3) {
                    case 0 -> 1 + random.nextLong(1L << 62);
                    case 1 -> (5L << 40) + random.nextInt(1 << 16);
                    default -> 12345;
                };
            }
            int[] order = ZSetScanOrder.byPlace(place);
            assertEquals(n, order.length);
            boolean[] seen = new boolean[n];
            for (int j = 0; j < n; j++) {
                assertTrue(!seen[order[j]], "position twice: " + order[j]);
                seen[order[j]] = true;
                assertTrue(j == 0 || place[order[j - 1]] <= place[order[j]], "out of order at " + j + " of " + n);
            }
        }
    }

    @Test
    void zscanOfAnUnchangedBigSetMatchesAndEndsAtZero() throws Exception {
        try (ColossalServer s = TestServers.colossal(dir); Jedis j = new Jedis("127.0.0.1", s.port())) {
            Map<String, Double> all = new HashMap<>();
            for (int i = 0; i < 1000; i++) {
                all.put((i % 2 == 0 ? "even:" : "odd:") + i, (double) i);
            }
            j.zadd("big", all);
            Set<String> got = new HashSet<>();
            String cursor = "0";
            do {
                ScanResult<Tuple> page = j.zscan("big", cursor, new ScanParams().count(25).match("odd:*"));
                for (Tuple t : page.getResult()) {
                    assertTrue(got.add(t.getElement()), "twice: " + t.getElement());
                    assertEquals(all.get(t.getElement()), t.getScore());
                }
                cursor = page.getCursor();
                assertTrue(Long.parseUnsignedLong(cursor) >= 0);
            } while (!cursor.equals("0"));
            assertEquals(500, got.size());
            assertTrue(got.stream().allMatch(m -> m.startsWith("odd:")));
        }
    }

    @Test
    void zrandmemberWithACountPicksDistinctMembersWithTheirScoresSpreadOverTheRanks() throws Exception {
        try (ColossalServer s = TestServers.colossal(dir); Jedis j = new Jedis("127.0.0.1", s.port())) {
            Map<String, Double> all = new HashMap<>();
            int n = 4000;
            for (int i = 0; i < n; i++) {
                all.put("m" + i, i * 1.5);
            }
            j.zadd("big", all);
            int[] quarters = new int[4];
            int rounds = 400;
            for (int round = 0; round < rounds; round++) {
                List<Tuple> picks = j.zrandmemberWithScores("big", 10);
                assertEquals(10, picks.size());
                assertEquals(10, new HashSet<>(picks.stream().map(Tuple::getElement).toList()).size(), "distinct");
                for (Tuple t : picks) {
                    assertEquals(all.get(t.getElement()), t.getScore(), "score of " + t.getElement());
                    quarters[(int) (t.getScore() / 1.5) * 4 / n]++;
                }
            }
            for (int q : quarters) { // 1000 picks a quarter expected; a sampling skewed to one end fails
                assertTrue(q > 800 && q < 1200, "picks by quarter of the ranks: " + java.util.Arrays.toString(quarters));
            }
            // A count near the set's size reads it whole: still distinct
            List<String> many = j.zrandmember("big", 3000);
            assertEquals(3000, new HashSet<>(many).size());
            assertTrue(all.keySet().containsAll(many));
            // Negative: that many, repeats allowed, every one a member with its score
            List<Tuple> repeated = j.zrandmemberWithScores("big", -50);
            assertEquals(50, repeated.size());
            for (Tuple t : repeated) {
                assertEquals(all.get(t.getElement()), t.getScore());
            }
            assertEquals(7, j.zrandmember("big", -7).size());
            // Past the size: the whole set, from the highest
            assertEquals(j.zrevrangeWithScores("big", 0, -1), j.zrandmemberWithScores("big", n + 5));
        }
    }

    @Test
    void zrandmemberAndZscanOfABigSetAnswerInRedisShapesInBothProtocols() throws Exception {
        int port = TestServers.freePort();
        Process redis = TestServers.redis(port);
        Assumptions.assumeTrue(redis != null, "redis-server not installed");
        try (ColossalServer s = TestServers.colossal(dir); Wire ours = new Wire(s.port()); Wire theirs = new Wire(port)) {
            for (Wire w : new Wire[] {ours, theirs}) {
                List<String> zadd = new ArrayList<>(List.of("ZADD", "big"));
                for (int i = 0; i < 300; i++) {
                    zadd.add(Double.toString(i * 0.25));
                    zadd.add("member:" + i);
                }
                w.call(zadd.toArray(String[]::new));
                assertEquals("$8\r\nskiplist\r\n", w.call("OBJECT", "ENCODING", "big"));
            }
            for (String protocol : new String[] {"2", "3"}) {
                ours.call("HELLO", protocol);
                theirs.call("HELLO", protocol);
                // Whole-set answers are the same bytes
                for (String[] cmd : List.of(new String[] {"ZRANDMEMBER", "big", "300", "WITHSCORES"},
                        new String[] {"ZRANDMEMBER", "big", "1000"}, new String[] {"ZRANDMEMBER", "big", "0"})) {
                    assertEquals(theirs.call(cmd), ours.call(cmd), String.join(" ", cmd) + " RESP" + protocol);
                }
                String zscan = "ZSCAN big 0 COUNT 1000";
                assertEquals(HashesDifferentialTest.comparable(new String[] {"HSCAN"}, theirs.call(zscan.split(" "))),
                        HashesDifferentialTest.comparable(new String[] {"HSCAN"}, ours.call(zscan.split(" "))), zscan);
                // Random answers have the same shape, and each member its own score
                for (String[] cmd : List.of(new String[] {"ZRANDMEMBER", "big", "5", "WITHSCORES"},
                        new String[] {"ZRANDMEMBER", "big", "-400", "WITHSCORES"}, new String[] {"ZRANDMEMBER", "big", "9"},
                        new String[] {"ZRANDMEMBER", "big", "-3"})) {
                    String mine = ours.call(cmd);
                    assertEquals(shape(theirs.call(cmd)), shape(mine), String.join(" ", cmd) + " RESP" + protocol);
                    Matcher m = Pattern.compile("member:(\\d+)\r\n(?:\\$\\d+\r\n|,)([^\r]*)\r\n").matcher(mine);
                    int pairs = 0;
                    while (cmd.length == 4 && m.find()) {
                        assertEquals(Integer.parseInt(m.group(1)) * 0.25, Double.parseDouble(m.group(2)), mine);
                        pairs++;
                    }
                    assertEquals(cmd.length == 4 ? Math.abs(Integer.parseInt(cmd[2])) : 0, pairs, mine);
                }
            }
        } finally {
            redis.destroy();
            redis.waitFor();
        }
    }

    /** A reply with each bulk string's and double's text blanked: what is left is its shape. */
    private static String shape(String reply) {
        return reply.replaceAll("\\$\\d+\r\n[^\r]*\r\n", "\\$\r\n").replaceAll(",[^\r]*\r\n", ",\r\n");
    }
}
