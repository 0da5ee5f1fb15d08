package dev.colossal.codec;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;

import java.lang.invoke.MethodHandles;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;

/** Equal values give equal bytes through {@link Codecs#canonical}, as a map comparing keys by bytes needs. */
class CanonicalCodecTest {

    record Tagged(String name, Set<String> tags, Map<String, Integer> counts) {}

    record Point(double x, float y) {}

    @Test
    void equalSetsAndMapsInAnyIterationOrderGiveEqualBytes() {
        Codec<Set<String>> sets = Codecs.canonical(Codecs.set(Codecs.string()));
        Set<String> xy = new LinkedHashSet<>(List.of("x", "y", "zz", ""));
        Set<String> yx = new LinkedHashSet<>(List.of("zz", "y", "", "x"));
        assertEquals(xy, yx);
        assertArrayEquals(Bytes.array(Bytes.encode(sets, xy)), Bytes.array(Bytes.encode(sets, yx)));
        assertEquals(xy, Bytes.roundTrip(sets, yx));

        Codec<Tagged> tagged = Codecs.canonical(Codecs.of(Tagged.class, MethodHandles.lookup()));
        Random random = new Random(9);
        List<String> words = new ArrayList<>();
        for (int i = 0; i < 40; i++) {
            words.add(i % 5 == 0 ? null : "w" + random.nextInt(1000) + "é".repeat(i % 3));
        }
        Tagged first = tagged(words);
        byte[] expected = Bytes.array(Bytes.encode(tagged, first));
        for (int round = 0; round < 50; round++) {
            Collections.shuffle(words, random);
            Tagged again = tagged(words);
            assertEquals(first, again);
            assertArrayEquals(expected, Bytes.array(Bytes.encode(tagged, again)), "round " + round);
        }
        assertEquals(first, Bytes.roundTrip(tagged, first));
    }

    private static Tagged tagged(List<String> words) {
        Set<String> tags = new HashSet<>(words.size() * 4); // another capacity: another iteration order
        tags.addAll(words);
        Map<String, Integer> counts = new LinkedHashMap<>();
        words.forEach(w -> counts.put(w, w == null ? -1 : w.length()));
        return new Tagged("t", tags, counts);
    }

    @Test
    void setsInsideSetsAndMapKeysAreSortedAllTheWayDown() {
        Codec<Set<Set<Integer>>> nested = Codecs.canonical(Codecs.set(Codecs.set(Codecs.int32())));
        Set<Set<Integer>> a = new LinkedHashSet<>(List.of(new LinkedHashSet<>(List.of(1, 2, 3)), new LinkedHashSet<>(List.of(9))));
        Set<Set<Integer>> b = new LinkedHashSet<>(List.of(new LinkedHashSet<>(List.of(9)), new LinkedHashSet<>(List.of(3, 1, 2))));
        assertArrayEquals(Bytes.array(Bytes.encode(nested, a)), Bytes.array(Bytes.encode(nested, b)));

        Codec<Map<Set<String>, List<String>>> maps = Codecs.canonical(
                Codecs.map(Codecs.set(Codecs.string()), Codecs.list(Codecs.string())));
        Map<Set<String>, List<String>> m1 = new LinkedHashMap<>();
        m1.put(new LinkedHashSet<>(List.of("a", "b")), List.of("2", "1"));
        m1.put(Set.of(), List.of());
        Map<Set<String>, List<String>> m2 = new LinkedHashMap<>();
        m2.put(Set.of(), List.of());
        m2.put(new LinkedHashSet<>(List.of("b", "a")), List.of("2", "1"));
        assertArrayEquals(Bytes.array(Bytes.encode(maps, m1)), Bytes.array(Bytes.encode(maps, m2)));
        assertEquals(List.of("2", "1"), Bytes.roundTrip(maps, m2).get(Set.of("a", "b")), "a list keeps its order");
    }

    @Test
    void theBytesHaveTheSameShapeAndOnlyKeysAreReordered() {
        Codec<Set<String>> plain = Codecs.set(Codecs.string());
        Codec<Set<String>> canonical = Codecs.canonical(plain);
        assertEquals(Codecs.schema(plain), Codecs.schema(canonical));
        Set<String> ba = new LinkedHashSet<>(List.of("b", "a"));
        assertEquals(List.of("b", "a"), List.copyOf(Bytes.roundTrip(plain, ba)), "values keep their iteration order");
        assertEquals(List.of("a", "b"), List.copyOf(plain.decode(Bytes.encode(canonical, ba))), "each reads the other");
        // a canonical value nested in an ordinary one orders itself only
        Codec<List<Set<String>>> mixed = Codecs.list(canonical);
        Codec<List<Set<String>>> outer = Codecs.list(plain);
        List<Set<String>> value = List.of(ba, ba);
        List<Set<String>> back = outer.decode(Bytes.encode(mixed, value));
        assertEquals(List.of("a", "b"), List.copyOf(back.get(1)));
        assertEquals(List.of("b", "a"), List.copyOf(Bytes.roundTrip(outer, value).get(1)));
    }

    @Test
    void codecsWithoutSetsOrMapsAndForeignCodecsAreReturnedAsTheyAre() {
        assertSame(Codecs.string(), Codecs.canonical(Codecs.string()));
        Codec<Point> points = Codecs.of(Point.class, MethodHandles.lookup());
        assertSame(points, Codecs.canonical(points));
        Codec<Set<String>> canonical = Codecs.canonical(Codecs.set(Codecs.string()));
        assertSame(canonical, Codecs.canonical(canonical));
        Codec<Set<String>> nullable = Codecs.canonical(Codecs.nullable(Codecs.set(Codecs.string())));
        assertArrayEquals(new byte[] {0}, Bytes.array(Bytes.encode(nullable, null)), "null still written as absent");
        assertEquals(new TreeSet<>(Set.of("q", "p")), new TreeSet<>(Bytes.roundTrip(nullable, Set.of("q", "p"))));
    }

    @Test
    void everyNanIsWrittenAsTheCanonicalNanAndNegativeZeroKeepsItsSign() {
        double otherNan = Double.longBitsToDouble(0x7ff8_0000_0000_0001L);
        float otherFloatNan = Float.intBitsToFloat(0x7fc0_0001);
        assertEquals(Double.valueOf(Double.NaN), Double.valueOf(otherNan), "Double.equals sees one NaN");
        assertArrayEquals(Bytes.array(Bytes.encode(Codecs.float64(), Double.NaN)),
                Bytes.array(Bytes.encode(Codecs.float64(), otherNan)));
        Codec<Point> points = Codecs.of(Point.class, MethodHandles.lookup());
        assertArrayEquals(Bytes.array(Bytes.encode(points, new Point(Double.NaN, Float.NaN))),
                Bytes.array(Bytes.encode(points, new Point(otherNan, otherFloatNan))));
        Codec<Float> floats = Codecs.of(Float.class);
        assertArrayEquals(Bytes.array(Bytes.encode(floats, Float.NaN)), Bytes.array(Bytes.encode(floats, otherFloatNan)));
        assertFalse(Arrays.equals(Bytes.array(Bytes.encode(Codecs.float64(), 0.0)),
                Bytes.array(Bytes.encode(Codecs.float64(), -0.0))), "-0.0 is not equal to 0.0 for Double.equals");
        assertEquals(-0.0, Bytes.roundTrip(Codecs.float64(), -0.0));
    }
}
