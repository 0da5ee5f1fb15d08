package dev.colossal.map;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.colossal.codec.Codec;
import dev.colossal.codec.CodecException;
import dev.colossal.codec.Codecs;
import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.Spliterator;
import java.util.stream.StreamSupport;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The typed map's views: they stream a step at a time, decode only what they show, and agree on expired entries. */
class MapViewsTest {

    @TempDir
    Path dir;

    private static final MapOptions ONE_SEGMENT = MapOptions.DEFAULTS.withSegments(1);

    private ColossalMap<String, Long> open(String name, MapOptions options) throws IOException {
        return ColossalMap.open(dir.resolve(name), Codecs.string(), Codecs.int64(), options);
    }

    private static MemorySegment encoded(Codec<String> codec, String key) {
        MemorySegment m = MemorySegment.ofArray(new byte[(int) codec.encodedSize(key)]);
        codec.encode(key, m, 0);
        return m;
    }

    /** A whole-segment snapshot would miss every key added after the first element; a walk meets those past its cursor. */
    @Test
    void anIteratorWalksTheMapAsItIsNotACopyOfItsFirstMoment() throws IOException {
        try (ColossalMap<String, Long> map = open("walk.map", ONE_SEGMENT)) {
            for (long i = 0; i < 200_000; i++) {
                map.put("old" + i, i);   // more than a step holds
            }
            Iterator<String> it = map.keySet().iterator();
            Set<String> seen = new HashSet<>();
            seen.add(it.next());
            for (long i = 0; i < 50_000; i++) {
                map.put("new" + i, i);   // grows the segment's table several times under the walk
            }
            it.forEachRemaining(k -> assertTrue(seen.add(k), "met twice: " + k));
            for (long i = 0; i < 200_000; i++) {
                assertTrue(seen.contains("old" + i), "an entry present throughout is met: old" + i);
            }
            long added = seen.stream().filter(k -> k.startsWith("new")).count();
            assertTrue(added > 20_000, "entries added past the first step are met: " + added);
        }
    }

    @Test
    void aValueThisCodecCannotReadBlocksNeitherTheKeysNorTheirRemoval() throws IOException {
        try (ColossalMap<String, Long> map = open("mixed.map", MapOptions.DEFAULTS)) {
            map.put("good", 1L);
            map.bytes().put(encoded(Codecs.string(), "bad"), MemorySegment.ofArray(new byte[3]));

            assertEquals(Set.of("good", "bad"), new HashSet<>(map.keySet()), "a key set decodes no value");
            CodecException put = assertThrows(CodecException.class, () -> map.put("bad", 2L));
            assertTrue(put.getMessage().contains("set(key, value) replaces it"), put.getMessage());
            assertThrows(CodecException.class, () -> map.get("bad"));
            assertTrue(map.keySet().contains("bad"), "nothing was changed by the failed put");

            assertTrue(map.keySet().remove("bad"));
            assertFalse(map.containsKey("bad"));
            assertEquals(Map.of("good", 1L), new HashMap<>(map));
        }
    }

    @Test
    void anIteratorRemovesByKeyWithoutReadingTheValue() throws IOException {
        try (ColossalMap<String, Long> map = open("remove.map", MapOptions.DEFAULTS)) {
            map.bytes().put(encoded(Codecs.string(), "bad"), MemorySegment.ofArray(new byte[3]));
            map.put("good", 1L);
            for (Iterator<String> it = map.keySet().iterator(); it.hasNext(); ) {
                if (it.next().equals("bad")) {
                    it.remove();
                }
            }
            assertEquals(Map.of("good", 1L), new HashMap<>(map));
        }
    }

    @Test
    void expiredEntriesTakeNoPartInIsEmptyAndLeaveEqualsSymmetric() throws IOException {
        try (ColossalMap<String, Long> map = open("ttl.map", MapOptions.DEFAULTS)) {
            long[] now = {1_000_000};
            map.bytes().file.clock = () -> now[0];
            map.put("a", 1L);
            map.set("b", 2L, Duration.ofSeconds(1));
            assertEquals(Map.of("a", 1L, "b", 2L), map);
            now[0] += 2000;
            // Other maps' equals compare sizes first, and size() still counts the expired entry:
            // so does this one's, or equality would not be symmetric.
            assertFalse(map.equals(Map.of("a", 1L)));
            assertFalse(Map.of("a", 1L).equals(map));
            assertEquals(Map.of("a", 1L).hashCode(), map.hashCode());
            assertEquals("{a=1}", map.toString());
            map.remove("a");
            assertEquals(1, map.size(), "size counts the expired entry until it is removed, as documented");
            assertTrue(map.isEmpty());
            assertTrue(map.keySet().isEmpty() && map.values().isEmpty() && map.entrySet().isEmpty());
            assertFalse(map.equals(Map.of()));
            assertFalse(map.equals(Map.of("b", 2L)));
            map.purgeExpired();
            assertEquals(Map.of(), map, "once removed, both sides agree");
        }
    }

    @Test
    void evenAMapOfOneSegmentSplitsForParallelStreams() throws IOException {
        try (ColossalMap<String, Long> map = open("split.map", ONE_SEGMENT)) {
            long expected = 0;
            for (long i = 0; i < 20_000; i++) {
                map.put("k" + i, i);
                expected += i;
            }
            Spliterator<Long> all = map.values().spliterator();
            Spliterator<Long> half = all.trySplit();
            assertTrue(half != null, "a one-segment map splits by cursor");
            long a = half.estimateSize();
            long b = all.estimateSize();
            assertTrue(a > 5_000 && b > 5_000 && a + b < 22_000, a + " + " + b);
            assertEquals(expected, map.values().parallelStream().mapToLong(Long::longValue).sum());
            assertEquals(20_000, StreamSupport.stream(map.entrySet().spliterator(), true).map(Map.Entry::getKey).distinct().count());
            assertEquals(List.of(), map.keySet().parallelStream().filter(k -> !k.startsWith("k")).toList());
        }
    }
    /**
     * Guava testlib's spliterator check splits until trySplit returns null: cursors number
     * segments << 26, and halving them down to single cursors made 2^28 pieces of a map of 3 entries.
     */
    @Test
    void aSmallMapStopsSplittingWhereItsEntriesRunOut() throws IOException {
        try (ColossalMap<String, Long> map = open("few.map", MapOptions.DEFAULTS.withSegments(4))) {
            assertNull(map.keySet().spliterator().trySplit(), "an empty map does not split");
            map.put("a", 1L);
            map.put("b", 2L);
            map.put("c", 3L);
            List<Spliterator<String>> pieces = new ArrayList<>(List.of(map.keySet().spliterator()));
            for (int i = 0; i < pieces.size(); i++) {
                for (Spliterator<String> prefix; (prefix = pieces.get(i).trySplit()) != null; ) {
                    pieces.add(prefix);
                }
                assertTrue(pieces.size() < 100, "pieces: " + pieces.size());
            }
            Set<String> seen = new HashSet<>();
            pieces.forEach(p -> p.forEachRemaining(k -> assertTrue(seen.add(k), "met twice: " + k)));
            assertEquals(Set.of("a", "b", "c"), seen);
        }
    }

    /**
     * toString writes AbstractMap's form, but at most the first thousand entries: a log line or a
     * debugger showing a map of a billion entries would decode all of them into one string.
     */
    @Test
    void toStringShowsTheFirstThousandEntriesAndHowManyThereAre() throws IOException {
        try (ColossalMap<String, Long> map = open("string.map", ONE_SEGMENT)) {
            assertEquals("{}", map.toString());
            map.put("a", 1L);
            map.put("b", 2L);
            StringBuilder inOrder = new StringBuilder();
            map.forEach((k, v) -> inOrder.append(inOrder.isEmpty() ? "{" : ", ").append(k).append('=').append(v));
            assertEquals(inOrder.append('}').toString(), map.toString());
            for (long i = 0; i < 1_500; i++) {
                map.put("k" + i, i);
            }
            String s = map.toString();
            assertTrue(s.endsWith(", ... (1000 of 1502 entries shown)}"), s.substring(Math.max(0, s.length() - 80)));
            assertEquals(1000, s.split(", ").length - 1, "entries before the ellipsis");
        }
    }
}
