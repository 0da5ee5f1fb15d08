package dev.colossal.codec;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.reflect.Array;
import java.lang.reflect.RecordComponent;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class CodecRoundTripTest {

    @Test
    void everyBuiltInTypeRoundTripsOverGeneratedValues() {
        Codec<Samples.Everything> codec = Codecs.of(Samples.Everything.class);
        Gen gen = new Gen(42);
        for (int i = 0; i < 2_000; i++) {
            Samples.Everything value = gen.everything();
            assertDeepEquals(value, Bytes.roundTrip(codec, value));
        }
    }

    @Test
    void valuesEncodeAtAnyOffsetAndNextToEachOther() {
        Codec<Samples.Everything> codec = Codecs.of(Samples.Everything.class);
        Gen gen = new Gen(7);
        List<Samples.Everything> values = new ArrayList<>();
        for (int i = 0; i < 50; i++) {
            values.add(gen.everything());
        }
        MemorySegment s = Arena.ofAuto().allocate(1 << 20);
        long off = 3; // deliberately unaligned
        long[] starts = new long[values.size() + 1];
        for (int i = 0; i < values.size(); i++) {
            starts[i] = off;
            off = codec.encode(values.get(i), s, off);
        }
        starts[values.size()] = off;
        for (int i = 0; i < values.size(); i++) {
            assertDeepEquals(values.get(i), codec.decode(s.asSlice(starts[i], starts[i + 1] - starts[i])));
        }
    }

    @Test
    void stringsKeepUnicodeIncludingSurrogatePairs() {
        Codec<String> codec = Codecs.string();
        for (String s : List.of("", "a", "héllo", "日本語", "😀 smile 😀", "\u0000", "\uFFFF", "a\u07FFb\u0800c")) {
            assertEquals(s, Bytes.roundTrip(codec, s));
            assertEquals(s.getBytes(java.nio.charset.StandardCharsets.UTF_8).length + 1,
                    codec.encodedSize(s), "UTF-8 length + 1 varint byte for " + s);
        }
        Gen gen = new Gen(3);
        for (int i = 0; i < 5_000; i++) {
            String s = gen.string();
            assertEquals(s, Bytes.roundTrip(codec, s));
        }
    }

    @Test
    void largeValuesRoundTrip() {
        String big = "x".repeat(1_000_000) + "é";
        assertEquals(big, Bytes.roundTrip(Codecs.string(), big));
        double[] doubles = new java.util.Random(1).doubles(2_000_000).toArray();
        assertArrayEquals(doubles, Bytes.roundTrip(Codecs.of(double[].class), doubles));
        float[] floats = new float[3_000_000];
        Arrays.fill(floats, 1.5f);
        assertArrayEquals(floats, Bytes.roundTrip(Codecs.of(float[].class), floats));
        assertEquals(4 + 12_000_000L, Codecs.of(float[].class).encodedSize(floats), "varint of 3M takes 4 bytes");
    }

    @Test
    void lengthsAtEveryVarintBoundaryRoundTrip() {
        int[] lengths = {0, 1, 127, 128, 16_383, 16_384, 2_097_151, 2_097_152};
        int[] varintBytes = {1, 1, 1, 2, 2, 3, 3, 4};
        for (int i = 0; i < lengths.length; i++) {
            byte[] bytes = new byte[lengths[i]];
            java.util.Arrays.fill(bytes, (byte) i);
            assertEquals(varintBytes[i] + (long) lengths[i], Codecs.bytes().encodedSize(bytes), "length " + lengths[i]);
            assertArrayEquals(bytes, Bytes.roundTrip(Codecs.bytes(), bytes));
            String text = "é".repeat(lengths[i] / 2) + "a".repeat(lengths[i] % 2); // exactly lengths[i] bytes
            assertEquals(varintBytes[i] + (long) lengths[i], Codecs.string().encodedSize(text));
            assertEquals(text, Bytes.roundTrip(Codecs.string(), text));
        }
    }

    @Test
    void theByteFormatIsTheDocumentedOne() {
        record Point(int x, String label) {}
        Codec<Point> codec = Codecs.of(Point.class, java.lang.invoke.MethodHandles.lookup());
        assertArrayEquals(new byte[] {7, 0, 0, 0, 1, 3, 'h', (byte) 0xC3, (byte) 0xA9},
                Bytes.array(Bytes.encode(codec, new Point(7, "hé"))));
        assertArrayEquals(new byte[] {(byte) 0xFF, (byte) 0xFF, (byte) 0xFF, (byte) 0xFF, 0},
                Bytes.array(Bytes.encode(codec, new Point(-1, null))));
        byte[] varint = Bytes.array(Bytes.encode(Codecs.bytes(), new byte[128]));
        assertEquals(130, varint.length);
        assertArrayEquals(new byte[] {(byte) 0x80, 0x01}, Arrays.copyOf(varint, 2), "varint 128 = 80 01");
        assertArrayEquals(new byte[] {2, 1, 5, 0, 0, 0, 0},
                Bytes.array(Bytes.encode(Codecs.list(Codecs.int32()), Arrays.asList(5, null))));
        assertArrayEquals(new byte[] {1, 0, 0, 0, 0, 0, 0, 0, 2, 0, 0, 0, 0, 0, 0, 0},
                Bytes.array(Bytes.encode(Codecs.uuid(), new java.util.UUID(1, 2))));
    }

    @Test
    void stringFieldsWriteTheGeneralBytesOnBothSidesOfTheOneStepPath() {
        // fields of up to 127 bytes are written and read in one step, longer ones by the general path:
        // both must give [1][varint n][UTF-8]
        record Label(String text) {}
        Codec<Label> codec = Codecs.of(Label.class, java.lang.invoke.MethodHandles.lookup());
        for (int n : new int[] {0, 1, 126, 127, 128, 129, 300}) {
            String text = "é".repeat(n / 2) + "a".repeat(n % 2);
            byte[] utf8 = text.getBytes(java.nio.charset.StandardCharsets.UTF_8);
            byte[] varint = n < 128 ? new byte[] {(byte) n} : new byte[] {(byte) (n & 0x7F | 0x80), (byte) (n >>> 7)};
            byte[] expected = new byte[1 + varint.length + n];
            expected[0] = 1;
            System.arraycopy(varint, 0, expected, 1, varint.length);
            System.arraycopy(utf8, 0, expected, 1 + varint.length, n);
            byte[] actual = Bytes.array(Bytes.encode(codec, new Label(text)));
            assertArrayEquals(expected, actual, "bytes=" + n);
            assertEquals(text, codec.decode(MemorySegment.ofArray(actual)).text(), "bytes=" + n);
        }
        assertArrayEquals(new byte[] {0}, Bytes.array(Bytes.encode(codec, new Label(null))));
        assertNull(codec.decode(MemorySegment.ofArray(new byte[] {0})).text());
    }

    @Test
    void anUnpairedSurrogateIsRefusedWhenSizedNamingItsIndex() {
        // it used to come back as '?': values changed, and "\uD800" and "?" were one map key
        record Label(String text) {}
        Codec<Label> field = Codecs.of(Label.class, java.lang.invoke.MethodHandles.lookup());
        Codec<List<String>> list = Codecs.list(Codecs.string());
        String[] bad = {"\uD800", "a\uDC00b", "hi \uD83D", "\uDE00\uD83D\uDE00", "é\uDBFF", "日本\uDFFF語"};
        int[] index = {0, 1, 3, 0, 1, 2};
        for (int i = 0; i < bad.length; i++) {
            String text = bad[i];
            String expected = "unpaired surrogate U+" + Integer.toHexString(text.charAt(index[i])).toUpperCase()
                    + " at index=" + index[i] + " of " + text.length() + " chars";
            assertContains(assertThrows(CodecException.class, () -> Codecs.string().encodedSize(text)).getMessage(),
                    expected);
            assertContains(assertThrows(CodecException.class, () -> field.encodedSize(new Label(text))).getMessage(),
                    expected);
            assertThrows(CodecException.class, () -> list.encodedSize(List.of("ok", text)));
        }
        assertEquals("😀", Bytes.roundTrip(Codecs.string(), "😀"), "a pair is fine");
    }

    @Test
    void stringsEncodeExactlyTheUtf8OfGetBytes() {
        // pins the format for any faster ASCII path: every near miss of ASCII (a 2-byte char, a 0 byte,
        // a '?', Latin-1 above 0x7F, 'Ł' whose low byte is 'A') must give the same bytes as getBytes,
        // as a value and as a nullable field, at both varint widths (unpaired surrogates are refused)
        record Label(String text) {}
        Codec<Label> field = Codecs.of(Label.class, java.lang.invoke.MethodHandles.lookup());
        List<String> texts = new ArrayList<>(List.of("é\u0000", "a\u0000é", "\u0000", "?", "a?b",
                "\uD83D\uDE00", "\u00FF", "ab\u0080", "\u0141", "z\u0141", "ĀB", "\u07FF\u0800"));
        for (int n : new int[] {0, 1, 7, 8, 9, 126, 127, 128, 129, 2_724, 2_725, 2_726, 2_727, 9_000}) {
            String ascii = "abcdefghij".repeat(n / 10 + 1).substring(0, n);
            texts.add(ascii);
            if (n > 0) {
                texts.add(ascii.substring(1) + "é");
                texts.add("é" + ascii.substring(1));
                texts.add(ascii.substring(1) + "\u0141");
                texts.add(ascii.substring(1) + "\uD83D\uDE00");
            }
        }
        for (String text : texts) {
            byte[] utf8 = text.getBytes(java.nio.charset.StandardCharsets.UTF_8);
            byte[] expected = Bytes.array(Bytes.encode(Codecs.bytes(), utf8)); // [varint n][n bytes]
            String what = "chars=" + text.length() + " " + text.substring(0, Math.min(12, text.length()));
            assertArrayEquals(expected, Bytes.array(Bytes.encode(Codecs.string(), text)), what);
            byte[] asField = Bytes.array(Bytes.encode(field, new Label(text)));
            assertEquals(1, asField[0], what);
            assertArrayEquals(expected, Arrays.copyOfRange(asField, 1, asField.length), what);
            assertEquals(new String(utf8, java.nio.charset.StandardCharsets.UTF_8),
                    field.decode(MemorySegment.ofArray(asField)).text(), what);
        }
    }

    @Test
    void anyBytesDecodeAsTheJdkDecodesThemWhereverTheyLieInTheWindow() {
        // decode takes ASCII by its own 8-bytes-at-a-time test: one byte above 0x7F (0x80, a lead
        // byte missing its continuation, 0xFF) at any position of a run of any length, and runs
        // ending at the window's edge, must still decode as new String(bytes, UTF_8) does
        java.util.Random random = new java.util.Random(11);
        List<byte[]> runs = new ArrayList<>();
        for (int n = 0; n <= 24; n++) {
            for (int at = -1; at < n; at++) {
                for (byte high : new byte[] {(byte) 0x80, (byte) 0xC3, (byte) 0xFF}) {
                    byte[] run = new byte[n];
                    for (int i = 0; i < n; i++) {
                        run[i] = (byte) (0x20 + random.nextInt(0x5F));
                    }
                    if (at >= 0) {
                        run[at] = high;
                    }
                    runs.add(run);
                }
            }
        }
        Codec<List<byte[]>> raw = Codecs.list(Codecs.bytes());
        Codec<List<String>> texts = Codecs.list(Codecs.string());
        for (int shift = 0; shift < 24; shift++) {
            List<byte[]> value = new ArrayList<>(runs.subList(shift, runs.size()));
            value.add(0, new byte[shift]);
            List<String> decoded = texts.decode(Bytes.encode(raw, value));
            for (int i = 0; i < value.size(); i++) {
                String expected = new String(value.get(i), java.nio.charset.StandardCharsets.UTF_8);
                assertEquals(expected, decoded.get(i), "shift " + shift + " run " + i);
            }
        }
        for (byte[] run : runs) {
            MemorySegment alone = Bytes.encode(Codecs.bytes(), run);
            assertEquals(new String(run, java.nio.charset.StandardCharsets.UTF_8), Codecs.string().decode(alone));
        }
    }

    @Test
    void stringsAcrossTheWindowEdgeRoundTrip() {
        // strings of every length 0..150 in a row put one across each 8 KiB window edge in turn
        record Texts(List<String> texts) {}
        Codec<Texts> codec = Codecs.of(Texts.class, java.lang.invoke.MethodHandles.lookup());
        for (int shift = 0; shift < 40; shift++) {
            List<String> texts = new ArrayList<>();
            texts.add("x".repeat(shift));
            for (int i = 0; texts.size() < 400; i = (i + 1) % 151) {
                texts.add(i % 7 == 0 ? null : "ab\u00e9".repeat(i / 3) + "z".repeat(i % 3));
            }
            Texts value = new Texts(texts);
            assertEquals(value, Bytes.roundTrip(codec, value), "shift " + shift);
        }
    }

    @Test
    void recursiveTypesRoundTrip() {
        Codec<Samples.Node> nodes = Codecs.of(Samples.Node.class);
        Samples.Node list = null;
        for (int i = 0; i < 200; i++) {
            list = new Samples.Node(i, list);
        }
        assertEquals(list, Bytes.roundTrip(nodes, list));
        Codec<Samples.Tree> trees = Codecs.of(Samples.Tree.class);
        Samples.Tree tree = new Samples.Tree("root", List.of(new Samples.Tree("a", List.of()),
                new Samples.Tree("b", Arrays.asList(new Samples.Tree("c", null), null))));
        assertEquals(tree, Bytes.roundTrip(trees, tree));
    }

    @Test
    void aCycleIsRefusedWithAMessageNotAStackOverflow() {
        Codec<Samples.Tree> trees = Codecs.of(Samples.Tree.class);
        List<Samples.Tree> children = new ArrayList<>();
        Samples.Tree loop = new Samples.Tree("loop", children);
        children.add(loop);
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> trees.encodedSize(loop));
        assertContains(e.getMessage(), "codecs write trees, not graphs with cycles");
        assertThrows(IllegalArgumentException.class, () -> trees.encode(loop, Arena.ofAuto().allocate(1 << 20), 0));
    }

    @Test
    void plainClassesRoundTripThroughFieldsOrTheirConstructor() {
        Samples.Mutable m = new Samples.Mutable();
        m.count = 3;
        m.name = "n";
        m.values = List.of(1L, 2L);
        Samples.Mutable back = Bytes.roundTrip(Codecs.of(Samples.Mutable.class), m);
        assertEquals(3, back.count);
        assertEquals("n", back.name);
        assertEquals(List.of(1L, 2L), back.values);
        Samples.Immutable i = Bytes.roundTrip(Codecs.of(Samples.Immutable.class), new Samples.Immutable(9, null));
        assertEquals(9, i.id);
        assertNull(i.name);
    }

    @Test
    void classesDecodeThroughAnAnnotatedConstructorInItsOwnParameterOrder() {
        Codec<Samples.Money> codec = Codecs.of(Samples.Money.class, java.lang.invoke.MethodHandles.lookup());
        Samples.Money back = Bytes.roundTrip(codec, new Samples.Money("EUR", 1234));
        assertEquals(1234, back.cents());
        assertEquals("EUR", back.currency());
        assertArrayEquals(new byte[] {(byte) 0xD2, 0x04, 0, 0, 0, 0, 0, 0, 1, 3, 'E', 'U', 'R'},
                Bytes.array(Bytes.encode(codec, new Samples.Money("EUR", 1234))), "fields in declaration order");
        // public class, constructor and accessors: no lookup needed, private fields read through name()
        assertEquals(1234, Bytes.roundTrip(Codecs.of(Samples.Money.class), new Samples.Money("EUR", 1234)).cents());
    }

    @Test
    void nonPublicTypesWorkWithTheCallersLookup() {
        record Secret(long id, List<String> tags) {}
        Codec<Secret> codec = Codecs.of(Secret.class, java.lang.invoke.MethodHandles.lookup());
        Secret s = new Secret(5, List.of("a"));
        assertEquals(s, Bytes.roundTrip(codec, s));
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> Codecs.of(Secret.class));
        assertContains(e.getMessage(), "Codecs.of(Secret.class, MethodHandles.lookup())");
    }

    @Test
    void compositeFactoriesRoundTripAndNullableAcceptsNull() {
        Codec<Map<String, List<Integer>>> codec = Codecs.map(Codecs.string(), Codecs.list(Codecs.int32()));
        Map<String, List<Integer>> m = new HashMap<>();
        m.put("a", List.of(1, 2));
        m.put(null, null);
        assertEquals(m, Bytes.roundTrip(codec, m));
        Codec<String> nullable = Codecs.nullable(Codecs.string());
        assertNull(Bytes.roundTrip(nullable, null));
        assertEquals(1, nullable.encodedSize(null));
        assertEquals(Optional.empty(), Bytes.roundTrip(Codecs.optional(Codecs.string()), Optional.empty()));
        NullPointerException npe = assertThrows(NullPointerException.class, () -> Codecs.string().encodedSize(null));
        assertContains(npe.getMessage(), "Codecs.nullable");
    }

    @Test
    void foreignCodecsNestWithALengthPrefix() {
        Codec<String> upper = new Codec<>() {
            @Override public long encodedSize(String v) { return v.length(); }
            @Override public long encode(String v, MemorySegment t, long o) {
                for (int i = 0; i < v.length(); i++) {
                    t.set(java.lang.foreign.ValueLayout.JAVA_BYTE, o + i, (byte) v.charAt(i));
                }
                return o + v.length();
            }
            @Override public String decode(MemorySegment s) {
                return new String(s.toArray(java.lang.foreign.ValueLayout.JAVA_BYTE),
                        java.nio.charset.StandardCharsets.ISO_8859_1);
            }
        };
        List<String> v = List.of("ab", "", "cde");
        assertEquals(v, Bytes.roundTrip(Codecs.list(upper), v));
    }

    @Test
    void valuesLongerThanTheDecodeWindowReadAcrossItsRefills() {
        // strings and numbers of every small length, so that the window boundaries fall inside
        // varints, strings, longs and presence bytes
        Gen gen = new Gen(11);
        List<Samples.Tree> leaves = new ArrayList<>();
        List<String> strings = new ArrayList<>();
        for (int i = 0; i < 3 * Input.WINDOW / 8; i++) {
            String s = i % 7 == 0 ? gen.string() : "x".repeat(i % 300);
            strings.add(i % 13 == 0 ? null : s);
            leaves.add(new Samples.Tree(s, List.of()));
        }
        assertEquals(strings, Bytes.roundTrip(Codecs.list(Codecs.string()), strings));
        Samples.Tree tree = new Samples.Tree("root", leaves);
        Codec<Samples.Tree> trees = Codecs.of(Samples.Tree.class);
        assertEquals(tree, Bytes.roundTrip(trees, tree));
        List<Samples.Everything> values = new ArrayList<>();
        for (int i = 0; i < 40; i++) {
            values.add(gen.everything());
        }
        List<Samples.Everything> back = Bytes.roundTrip(Codecs.list(Codecs.of(Samples.Everything.class)), values);
        for (int i = 0; i < values.size(); i++) {
            assertDeepEquals(values.get(i), back.get(i));
        }
    }

    @Test
    void anEncodeIntoATooSmallTargetFailsAndLeavesItUntouched() {
        // the value fits the encode window, so nothing reaches the target before its size is checked
        Codec<Samples.Tree> trees = Codecs.of(Samples.Tree.class);
        Samples.Tree tree = new Samples.Tree("root", List.of(new Samples.Tree("leaf", List.of())));
        long size = trees.encodedSize(tree);
        MemorySegment small = Arena.ofAuto().allocate(size - 1);
        assertThrows(IndexOutOfBoundsException.class, () -> trees.encode(tree, small, 0));
        assertEquals(-1, small.mismatch(Arena.ofAuto().allocate(size - 1)), "target must stay all zero");
        assertEquals(tree, Bytes.roundTrip(trees, tree), "the thread's encode window is usable again");
    }

    @Test
    void aDecodeInsideADecodeGetsItsOwnWindow() {
        // a foreign codec that decodes through one of ours, its own bytes and unrelated ones, while
        // the outer decode is still reading
        Codec<Samples.Tree> trees = Codecs.of(Samples.Tree.class);
        Samples.Tree other = new Samples.Tree("o".repeat(3000), List.of(new Samples.Tree("p", List.of())));
        MemorySegment otherBytes = Bytes.encode(trees, other);
        Codec<Samples.Tree> wrapped = new Codec<>() {
            @Override public long encodedSize(Samples.Tree v) { return trees.encodedSize(v); }
            @Override public long encode(Samples.Tree v, MemorySegment t, long o) { return trees.encode(v, t, o); }
            @Override public Samples.Tree decode(MemorySegment s) {
                assertEquals(other, trees.decode(otherBytes));
                return trees.decode(s);
            }
        };
        List<Samples.Tree> v = new ArrayList<>();
        for (int i = 0; i < 500; i++) {
            // some values are longer than a window: their decode refills theirs all through
            String leaf = i % 50 == 0 ? "y".repeat(Input.WINDOW + i) : "leaf".repeat(i % 40);
            v.add(new Samples.Tree("t" + i, List.of(new Samples.Tree(leaf, List.of()), new Samples.Tree("z", List.of()))));
        }
        assertEquals(v, Bytes.roundTrip(Codecs.list(wrapped), v));
    }

    static void assertContains(String text, String part) {
        if (text == null || !text.contains(part)) {
            throw new AssertionError("expected to contain <" + part + "> but was <" + text + ">");
        }
    }

    /** Records holding arrays do not compare arrays by content; this does. */
    static void assertDeepEquals(Object expected, Object actual) {
        if (expected != null && expected.getClass().isRecord()) {
            assertEquals(expected.getClass(), actual.getClass());
            for (RecordComponent c : expected.getClass().getRecordComponents()) {
                try {
                    assertDeepEquals(c.getAccessor().invoke(expected), c.getAccessor().invoke(actual));
                } catch (ReflectiveOperationException e) {
                    throw new AssertionError(e);
                }
            }
        } else if (expected != null && expected.getClass().isArray()) {
            assertEquals(Array.getLength(expected), Array.getLength(actual));
            for (int i = 0; i < Array.getLength(expected); i++) {
                assertDeepEquals(Array.get(expected, i), Array.get(actual, i));
            }
        } else if (!Objects.equals(expected, actual)) {
            assertEquals(expected, actual);
        }
    }
}
