package dev.colossal.map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.colossal.codec.Codec;
import dev.colossal.codec.CodecException;
import dev.colossal.codec.Codecs;
import java.lang.foreign.MemorySegment;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Keys that are equal by {@code equals} are one key in a {@link ColossalMap}, although the map
 * compares them by their encoded bytes: sets and maps in any iteration order, and every NaN; and a
 * string with an unpaired surrogate, which would be stored as '?', is refused. A lookup of a key of
 * another class finds nothing, but a codec's ClassCastException on a write is no silent no-op.
 */
class CodecKeyTest {

    @TempDir
    Path dir;

    record Group(String name, Set<String> members) {}

    @Test
    void equalSetMapAndRecordKeysInAnotherIterationOrderAreOneKey() throws Exception {
        try (ColossalMap<Set<String>, String> sets = ColossalMap.open(dir.resolve("sets.map"),
                Codecs.set(Codecs.string()), Codecs.string());
             ColossalMap<Map<String, Integer>, String> maps = ColossalMap.open(dir.resolve("maps.map"),
                     Codecs.map(Codecs.string(), Codecs.int32()), Codecs.string());
             ColossalMap<Group, Integer> groups = ColossalMap.open(dir.resolve("groups.map"),
                     Codecs.of(Group.class, java.lang.invoke.MethodHandles.lookup()), Codecs.int32())) {
            Set<String> xy = new LinkedHashSet<>(List.of("x", "y"));
            Set<String> yx = new LinkedHashSet<>(List.of("y", "x"));
            sets.put(xy, "first");
            assertEquals("first", sets.get(yx));
            assertTrue(sets.containsKey(yx));
            assertEquals("first", sets.put(yx, "second"));
            assertEquals(1, sets.size());

            Map<String, Integer> ab = new LinkedHashMap<>();
            ab.put("a", 1);
            ab.put("b", 2);
            Map<String, Integer> ba = new LinkedHashMap<>();
            ba.put("b", 2);
            ba.put("a", 1);
            maps.put(ab, "v");
            assertEquals("v", maps.get(ba));

            groups.put(new Group("g", xy), 1);
            groups.merge(new Group("g", yx), 1, Integer::sum);
            assertEquals(Map.of(new Group("g", xy), 2), new HashMap<>(groups));
        }
    }

    @Test
    void everyNanIsOneKeyAndNegativeZeroIsAnother() throws Exception {
        try (ColossalMap<Double, String> m = ColossalMap.open(dir.resolve("d.map"), Codecs.float64(), Codecs.string())) {
            m.put(Double.NaN, "nan");
            m.put(Double.longBitsToDouble(0x7ff8_0000_0000_0001L), "other nan");
            m.put(0.0, "zero");
            m.put(-0.0, "negative zero");
            Map<Double, String> expected = new HashMap<>();
            expected.put(Double.NaN, "other nan");
            expected.put(0.0, "zero");
            expected.put(-0.0, "negative zero");
            assertEquals(3, m.size(), "two NaNs are one key, as in a HashMap");
            assertEquals("other nan", m.get(Double.NaN));
            assertEquals(expected, new HashMap<>(m));
        }
    }

    @Test
    void anUnpairedSurrogateIsRefusedRatherThanStoredAsAQuestionMark() throws Exception {
        try (ColossalMap<String, String> m = ColossalMap.open(dir.resolve("s.map"), Codecs.string(), Codecs.string())) {
            m.put("?", "question");
            CodecException e = assertThrows(CodecException.class, () -> m.put("\uD800", "lone"));
            assertTrue(e.getMessage().contains("unpaired surrogate U+D800 at index=0"), e.getMessage());
            assertThrows(CodecException.class, () -> m.put("k", "cut \uD83D"));
            assertEquals(Map.of("?", "question"), new HashMap<>(m), "nothing was overwritten");
        }
    }

    /** A codec with a bug: every key it meets past the first is cast to a type it is not. */
    static final class BrokenCodec implements Codec<String> {
        private final AtomicInteger calls = new AtomicInteger();

        @Override
        public long encodedSize(String value) {
            return calls.getAndIncrement() == 0 ? Codecs.string().encodedSize(value) : ((Integer) (Object) value).longValue();
        }

        @Override
        public long encode(String value, MemorySegment target, long offset) {
            return Codecs.string().encode(value, target, offset);
        }

        @Override
        public String decode(MemorySegment source) {
            return Codecs.string().decode(source);
        }
    }

    @Test
    void aKeyOfAnotherClassIsAbsentButAWriteThroughABrokenCodecThrows() throws Exception {
        try (ColossalMap<String, String> m = ColossalMap.open(dir.resolve("broken.map"), new BrokenCodec(), Codecs.string());
             ColossalMap<Long, String> longs = ColossalMap.open(dir.resolve("longs.map"), Codecs.int64(), Codecs.string());
             ColossalMap<Point, String> points = ColossalMap.open(dir.resolve("points.map"), Codecs.of(Point.class), Codecs.string());
             ColossalMap<byte[], String> arrays = ColossalMap.open(dir.resolve("arrays.map"), Codecs.bytes(), Codecs.string())) {
            m.put("stored", "v");
            assertThrows(ClassCastException.class, () -> m.put("other", "v"), "not a put that stores nothing");
            assertThrows(ClassCastException.class, () -> m.merge("other", "v", String::concat));
            assertThrows(ClassCastException.class, () -> m.computeIfAbsent("other", k -> "v"));
            assertEquals(1, m.size());
            assertNull(longs.get("1"), "a String is no Long key");
            assertFalse(longs.containsKey(1));
            assertFalse(longs.keySet().remove(1));
            points.put(new Point(1, 2), "p");
            assertNull(points.get("(1, 2)"), "a generated record codec's cast, too, means another class");
            assertNull(points.remove(7L));
            assertEquals("p", points.get(new Point(1, 2)));
            // The array codecs, too: a String was "IllegalArgumentException: Argument is not an
            // array", and an int[] would have been read as that many bytes.
            arrays.put(new byte[] {1, 2}, "a");
            assertNull(arrays.get("x"));
            assertNull(arrays.get(new int[] {1, 2}));
            assertFalse(arrays.containsKey(7));
            assertNull(arrays.remove("x"));
            assertEquals("a", arrays.get(new byte[] {1, 2}));
            @SuppressWarnings({"unchecked", "rawtypes"})
            Map<Object, String> raw = (Map) arrays;
            ClassCastException put = assertThrows(ClassCastException.class, () -> raw.put(new int[] {1}, "no"));
            assertEquals("the byte[] codec was given a int[]", put.getMessage());
        }
    }

    /** A record key, through the codec {@code Codecs.of} generates. */
    public record Point(int x, int y) {}
}
