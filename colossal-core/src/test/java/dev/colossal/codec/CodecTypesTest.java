package dev.colossal.codec;

import static dev.colossal.codec.CodecRoundTripTest.assertContains;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.lang.foreign.MemorySegment;
import java.lang.invoke.MethodHandles;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.LocalTime;
import java.util.ArrayDeque;
import java.util.Arrays;
import java.util.Comparator;
import java.util.Currency;
import java.util.Deque;
import java.util.EnumMap;
import java.util.EnumSet;
import java.util.LinkedList;
import java.util.List;
import java.util.Map;
import java.util.NavigableMap;
import java.util.PriorityQueue;
import java.util.Queue;
import java.util.SortedSet;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import org.junit.jupiter.api.Test;

/** The JDK types a record may hold, the collection types it may declare, and codecs of your own. */
class CodecTypesTest {

    private static final MethodHandles.Lookup LOOKUP = MethodHandles.lookup();

    enum Side { BUY, SELL }

    record Collections(LinkedList<String> linked, ArrayDeque<Integer> deque, Deque<String> anyDeque,
                       Queue<String> queue, SortedSet<String> sorted, TreeSet<Integer> tree, EnumSet<Side> sides,
                       TreeMap<String, Integer> treeMap, NavigableMap<Long, String> navigable,
                       ConcurrentHashMap<String, Long> concurrent, ConcurrentMap<String, Long> anyConcurrent,
                       EnumMap<Side, Integer> bySide) {}

    @Test
    void commonConcreteCollectionsReadBackAsTheirDeclaredTypes() {
        LinkedList<String> linked = new LinkedList<>(Arrays.asList("a", null, "b"));
        TreeSet<String> reversed = new TreeSet<>(Comparator.reverseOrder());
        reversed.addAll(List.of("x", "a", "m"));
        Collections value = new Collections(linked, new ArrayDeque<>(List.of(3, 1, 2)),
                new LinkedList<>(List.of("d")), new LinkedList<>(List.of("q1", "q2")), reversed,
                new TreeSet<>(List.of(5, 4)), EnumSet.of(Side.SELL), new TreeMap<>(Map.of("b", 2, "a", 1)),
                new TreeMap<>(Map.of(2L, "two", 1L, "one")), new ConcurrentHashMap<>(Map.of("k", 1L)),
                new ConcurrentHashMap<>(Map.of("c", 2L)), new EnumMap<>(Map.of(Side.BUY, 7)));
        Collections back = Bytes.roundTrip(Codecs.of(Collections.class, LOOKUP), value);
        assertInstanceOf(LinkedList.class, back.linked());
        assertEquals(linked, back.linked());
        assertEquals(List.of(3, 1, 2), List.copyOf(back.deque()), "a deque keeps its order");
        assertEquals(List.of("q1", "q2"), List.copyOf(back.queue()));
        assertEquals(List.of("a", "m", "x"), List.copyOf(back.sorted()), "natural order: the comparator is not kept");
        assertEquals(value.sorted(), back.sorted(), "the same elements");
        assertEquals(EnumSet.of(Side.SELL), back.sides());
        assertInstanceOf(EnumSet.class, back.sides());
        assertEquals(value.treeMap(), back.treeMap());
        assertEquals(1L, back.navigable().firstKey());
        assertInstanceOf(ConcurrentHashMap.class, back.anyConcurrent());
        assertEquals(value.concurrent(), back.concurrent());
        assertInstanceOf(EnumMap.class, back.bySide());
        assertEquals(value.bySide(), back.bySide());
        // the same bytes as List and Set: a field may change between them
        assertEquals("list<string>", Codecs.schema(Codecs.ofType(Collections.class.getRecordComponents()[0].getGenericType())));
    }

    record Prioritized(PriorityQueue<String> queue) {}

    record Unsorted(TreeSet<int[]> arrays) {}

    record Box<T>(T value) {}

    record HoldsBox(Box<String> box) {}

    @Test
    void unsupportedCollectionsAndGenericRecordsSayWhatToDeclare() {
        String queue = assertThrows(IllegalArgumentException.class, () -> Codecs.of(Prioritized.class, LOOKUP)).getMessage();
        assertContains(queue, "field=Prioritized.queue type=java.util.PriorityQueue<java.lang.String> cannot be encoded: "
                + "this collection type is not supported; declare it as List<E>, Set<E> or Map<K, V>");
        assertContains(queue, "a comparator is not kept");
        assertContains(assertThrows(IllegalArgumentException.class, () -> Codecs.of(Unsorted.class, LOOKUP)).getMessage(),
                "int[] is not Comparable; declare it as a Set<E>");
        String box = assertThrows(IllegalArgumentException.class, () -> Codecs.of(HoldsBox.class, LOOKUP)).getMessage();
        assertContains(box, "field=HoldsBox.box type=dev.colossal.codec.CodecTypesTest$Box<java.lang.String> cannot be "
                + "encoded: a generic record or class cannot be encoded");
        assertFalse(box.contains("only List, Set, Map"), box);
    }

    record Times(Instant at, Duration took, LocalDate day, LocalTime time, LocalDateTime local,
                 BigInteger count, BigDecimal price, List<BigDecimal> prices) {}

    @Test
    void commonJdkValueTypesRoundTrip() {
        Codec<Times> codec = Codecs.of(Times.class, LOOKUP);
        List<Times> values = List.of(
                new Times(Instant.parse("2024-02-29T12:34:56.789Z"), Duration.ofMillis(-1_500), LocalDate.of(2024, 2, 29),
                        LocalTime.of(23, 59, 59, 999_999_999), LocalDateTime.of(1969, 12, 31, 0, 0, 0, 1),
                        new BigInteger("-123456789012345678901234567890"), new BigDecimal("19.990"),
                        List.of(BigDecimal.ZERO, new BigDecimal("1E+3"), new BigDecimal("-0.0000001"))),
                new Times(Instant.MIN, Duration.ofSeconds(Long.MAX_VALUE, 999_999_999), LocalDate.MIN, LocalTime.MIN,
                        LocalDateTime.MAX, BigInteger.ZERO, BigDecimal.ONE.negate(), List.of()),
                new Times(null, null, LocalDate.MAX, LocalTime.MAX, LocalDateTime.MIN, BigInteger.TWO.pow(1000),
                        new BigDecimal(BigInteger.valueOf(-255), -7), null));
        for (Times t : values) {
            assertEquals(t, Bytes.roundTrip(codec, t));
        }
        assertEquals(new BigDecimal("19.990"), Bytes.roundTrip(Codecs.of(BigDecimal.class), new BigDecimal("19.990")),
                "the scale is kept: BigDecimal.equals tells 19.99 from 19.990");
        assertArrayEquals(new byte[] {1, 0}, Bytes.array(Bytes.encode(Codecs.of(BigInteger.class), BigInteger.ZERO)));
        assertArrayEquals(new byte[] {2, 0, (byte) 0x80}, Bytes.array(Bytes.encode(Codecs.of(BigInteger.class),
                BigInteger.valueOf(128))), "big-endian two's complement, as toByteArray");
    }

    @Test
    void invalidJdkValueBytesAreRefusedNamingTheTypeAndOffset() {
        byte[] day = Bytes.array(Bytes.encode(Codecs.of(LocalDate.class), LocalDate.MAX));
        day[7] = 0x7F; // an epoch day far past LocalDate.MAX
        assertContains(assertThrows(CodecException.class, () -> Codecs.of(LocalDate.class).decode(MemorySegment.ofArray(day)))
                .getMessage(), "cannot decode type=LocalDate at offset=0 of 8 bytes: epoch day=");
        byte[] time = new byte[8];
        Arrays.fill(time, (byte) 0xFF);
        assertContains(assertThrows(CodecException.class, () -> Codecs.of(LocalTime.class).decode(MemorySegment.ofArray(time)))
                .getMessage(), "type=LocalTime at offset=0");
        byte[] duration = new byte[12];
        duration[11] = (byte) 0x80;
        assertContains(assertThrows(CodecException.class, () -> Codecs.of(Duration.class).decode(MemorySegment.ofArray(duration)))
                .getMessage(), "type=Duration at offset=0 of 12 bytes: nanos=");
        assertContains(assertThrows(CodecException.class, () -> Codecs.of(BigInteger.class).decode(Bytes.of((byte) 0)))
                .getMessage(), "type=BigInteger at offset=0 of 1 bytes: length=0");
    }

    /** A value type with no built-in codec. */
    record Money(long cents, Currency currency) {}

    record Order(long id, Money total, List<Currency> accepted, Map<Currency, Money> byCurrency) {}

    /** Currencies by their ISO code: a codec of the user's own, not one Colossal made. */
    static final Codec<Currency> CURRENCIES = new Codec<>() {
        @Override
        public long encodedSize(Currency value) {
            return 3;
        }

        @Override
        public long encode(Currency value, MemorySegment target, long offset) {
            for (int i = 0; i < 3; i++) {
                target.set(java.lang.foreign.ValueLayout.JAVA_BYTE, offset + i, (byte) value.getCurrencyCode().charAt(i));
            }
            return offset + 3;
        }

        @Override
        public Currency decode(MemorySegment source) {
            return Currency.getInstance(new String(source.toArray(java.lang.foreign.ValueLayout.JAVA_BYTE),
                    java.nio.charset.StandardCharsets.US_ASCII));
        }
    };

    @Test
    void aCodecOfYourOwnServesItsTypeWhereverItAppears() {
        assertContains(assertThrows(IllegalArgumentException.class, () -> Codecs.of(Order.class, LOOKUP)).getMessage(),
                "field=Order.total.currency type=java.util.Currency cannot be encoded: this JDK type has no built-in "
                        + "codec; supported: ");
        Codec<Order> orders = Codecs.of(Order.class, LOOKUP, Map.of(Currency.class, CURRENCIES));
        Currency eur = Currency.getInstance("EUR");
        Currency usd = Currency.getInstance("USD");
        Order order = new Order(7, new Money(1999, eur), List.of(eur, usd), Map.of(usd, new Money(2150, usd)));
        assertEquals(order, Bytes.roundTrip(orders, order));
        assertEquals(new Order(8, new Money(1, null), null, null), Bytes.roundTrip(orders, new Order(8, new Money(1, null), null, null)));
        // a codec Colossal made may stand in too, e.g. for a built-in type
        Codec<Money> cents = Codecs.of(Money.class, LOOKUP, Map.of(Currency.class, CURRENCIES, Long.class, Codecs.int64()));
        assertEquals(new Money(5, usd), Bytes.roundTrip(cents, new Money(5, usd)));
    }

    /** Not public: the public lookup of Codecs.of(Class) cannot reach it. */
    record Hidden(String name) {}

    @Test
    void anInaccessibleTypeIsReportedWithoutTheJdksGarbledMemberName() {
        String m = assertThrows(IllegalArgumentException.class, () -> Codecs.of(Hidden.class)).getMessage();
        assertContains(m, "field=Hidden.name: type=dev.colossal.codec.CodecTypesTest$Hidden is not accessible to Colossal: "
                + "the class is not public; pass a lookup that can see it, Codecs.of(Hidden.class, MethodHandles.lookup())");
        assertFalse(m.contains("[Ljava.lang.Object;@"), m);
        assertEquals(new Hidden("h"), Bytes.roundTrip(Codecs.of(Hidden.class, LOOKUP), new Hidden("h")));
    }
}
