package dev.colossal.struct;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.List;
import org.junit.jupiter.api.Test;

class StructTest {

    @Test
    void recordLayoutsFollowDeclarationOrderWithNaturalPadding() {
        StructType<StructSamples.Padded> t = StructType.of(StructSamples.Padded.class);
        assertEquals(0, t.offsetOf("flag"));
        assertEquals(8, t.offsetOf("value"), "long aligned to 8 after a byte");
        assertEquals(16, t.offsetOf("small"));
        assertEquals(18, t.offsetOf("code"));
        assertEquals(24, t.offsetOf("inner"), "Inner holds doubles: aligned to 8");
        assertEquals(24 + 24, t.byteSize(), "Inner is int + pad + 2 doubles = 24; total a multiple of 8");
        assertEquals(8, t.layout().byteAlignment());
        assertTrue(t.describe().contains("utf8[3]"), t.describe());
    }

    @Test
    void interfaceLayoutsGoByAlignmentThenNameWithoutInnerPadding() {
        StructType<StructSamples.PriceUpdate> t = StructType.of(StructSamples.PriceUpdate.class);
        // 8-aligned: bid[4], instrument (8-aligned: id), price, time; then quantity; then buy
        assertEquals(0, t.offsetOf("bid"));
        assertEquals(32, t.offsetOf("instrument"));
        assertEquals(56, t.offsetOf("price"));
        assertEquals(64, t.offsetOf("time"));
        assertEquals(72, t.offsetOf("quantity"));
        assertEquals(76, t.offsetOf("buy"));
        assertEquals(80, t.byteSize());
        StructType<StructSamples.Instrument> i = StructType.of(StructSamples.Instrument.class);
        assertEquals(24, i.byteSize(), "id 8 + market 1 + symbol 8, padded to 24");
    }

    @Test
    void flyweightsReadAndWriteInPlaceIncludingNestedStructsArraysAndStrings() {
        try (Arena arena = Arena.ofConfined()) {
            StructArray<StructSamples.PriceUpdate> a = StructArray.allocate(
                    StructType.of(StructSamples.PriceUpdate.class), 1000, arena);
            StructSamples.PriceUpdate p = a.flyweight();
            assertInstanceOf(Flyweight.class, p);
            for (int i = 0; i < 1000; i++) {
                a.at(p, i);
                p.time(i * 10L);
                p.price(i + 0.5);
                p.quantity(-i);
                p.buy(i % 2 == 0);
                p.bid(3, i * 3L);
                p.instrument().id(7_000 + i);
                p.instrument().symbol("S" + i);
                p.instrument().market((byte) i);
            }
            StructSamples.PriceUpdate q = a.flyweight();
            for (int i = 999; i >= 0; i--) {
                a.at(q, i);
                assertEquals(i * 10L, q.time());
                assertEquals(i + 0.5, q.price());
                assertEquals(-i, q.quantity());
                assertEquals(i % 2 == 0, q.buy());
                assertEquals(i * 3L, q.bid(3));
                assertEquals(0, q.bid(0));
                assertEquals(7_000 + i, q.instrument().id());
                assertEquals("S" + i, q.instrument().symbol());
                assertEquals((byte) i, q.instrument().market());
            }
            assertThrows(IndexOutOfBoundsException.class, () -> q.bid(4), "array index checked by the VarHandle");
            assertThrows(IndexOutOfBoundsException.class, () -> a.at(q, 1000));
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                    () -> q.instrument().symbol("TOO-LONG-9"));
            assertTrue(e.getMessage().contains("field=Instrument.symbol holds 8 bytes"), e.getMessage());
            q.instrument().symbol("日本"); // 6 bytes of UTF-8
            assertEquals("日本", q.instrument().symbol());
        }
    }

    @Test
    void theBytesAreWhereTheLayoutSays() {
        try (Arena arena = Arena.ofConfined()) {
            StructType<StructSamples.PriceUpdate> t = StructType.of(StructSamples.PriceUpdate.class);
            StructArray<StructSamples.PriceUpdate> a = StructArray.allocate(t, 2, arena);
            StructSamples.PriceUpdate p = a.at(a.flyweight(), 1);
            p.time(0x1122334455667788L);
            MemorySegment s = ((Flyweight) p).baseSegment();
            assertEquals(t.byteSize(), ((Flyweight) p).baseOffset());
            assertEquals(0x1122334455667788L, s.get(ValueLayout.JAVA_LONG, t.byteSize() + t.offsetOf("time")));
        }
    }

    @Test
    void recordsCopyInAndOut() {
        try (Arena arena = Arena.ofConfined()) {
            StructArray<StructSamples.Padded> a = StructArray.allocate(StructType.of(StructSamples.Padded.class), 10, arena);
            StructSamples.Padded v = new StructSamples.Padded((byte) 1, 2L, (short) 3, "abc",
                    new StructSamples.Inner(4, new double[] {5, 6}));
            a.set(9, v);
            StructSamples.Padded back = a.get(9);
            assertEquals(v.flag(), back.flag());
            assertEquals(v.value(), back.value());
            assertEquals(v.small(), back.small());
            assertEquals("abc", back.code());
            assertEquals(4, back.inner().a());
            assertArrayEquals(new double[] {5, 6}, back.inner().pair());
            assertEquals(0L, a.get(0).value());
            assertThrows(IllegalArgumentException.class, () -> a.set(0, new StructSamples.Padded((byte) 1, 2L,
                    (short) 3, "abc", new StructSamples.Inner(4, new double[3]))));
            assertThrows(IllegalArgumentException.class, () -> a.set(0, new StructSamples.Padded((byte) 1, 2L,
                    (short) 3, "A\u0000B", new StructSamples.Inner(4, new double[2]))), "\"A\\0B\" would read back \"A\"");
            assertThrows(UnsupportedOperationException.class, a::flyweight);
        }
    }

    @Test
    void aRefusedRecordLeavesTheWholeStructAsItWas() {
        try (Arena arena = Arena.ofConfined()) {
            StructType<StructSamples.Padded> type = StructType.of(StructSamples.Padded.class);
            MemorySegment memory = arena.allocate(type.layout(), 2);
            StructArray<StructSamples.Padded> a = StructArray.wrap(type, memory);
            StructSamples.Padded stored = new StructSamples.Padded((byte) 1, 2L, (short) 3, "abc",
                    new StructSamples.Inner(4, new double[] {5, 6}));
            a.set(1, stored);
            MemorySegment before = memory.asSlice(type.byteSize(), type.byteSize());
            byte[] bytes = before.toArray(ValueLayout.JAVA_BYTE);
            // every field but the last one fine: the fields before it must not be written either
            for (StructSamples.Padded refused : List.of(
                    new StructSamples.Padded((byte) 9, 9L, (short) 9, "abcd", new StructSamples.Inner(9, new double[2])),
                    new StructSamples.Padded((byte) 9, 9L, (short) 9, "\u00e9\u00e9", new StructSamples.Inner(9, new double[2])),
                    new StructSamples.Padded((byte) 9, 9L, (short) 9, "xyz", null),
                    new StructSamples.Padded((byte) 9, 9L, (short) 9, "xyz", new StructSamples.Inner(9, new double[3])))) {
                assertThrows(IllegalArgumentException.class, () -> a.set(1, refused), refused.toString());
                assertArrayEquals(bytes, before.toArray(ValueLayout.JAVA_BYTE), "struct changed by " + refused);
            }
        }
    }

    @Test
    void chunkedArraysPlaceWholeStructsInEachChunk() {
        try (Arena arena = Arena.ofConfined()) {
            StructType<StructSamples.PriceUpdate> t = StructType.of(StructSamples.PriceUpdate.class);
            int shift = 8; // 256-byte chunks: 3 structs of 80 bytes each, 16 bytes unused
            MemorySegment[] chunks = new MemorySegment[4];
            for (int i = 0; i < chunks.length; i++) {
                chunks[i] = arena.allocate(1 << shift, 8);
            }
            StructArray<StructSamples.PriceUpdate> a = StructArray.overChunks(t, chunks, shift, 12);
            StructSamples.PriceUpdate p = a.flyweight();
            for (int i = 0; i < 12; i++) {
                a.at(p, i).time(i);
            }
            for (int i = 0; i < 12; i++) {
                assertEquals(i, a.at(p, i).time());
                assertEquals(chunks[i / 3], ((Flyweight) p).baseSegment());
                assertEquals((i % 3) * 80L, ((Flyweight) p).baseOffset());
            }
            assertThrows(IllegalArgumentException.class, () -> StructArray.overChunks(t, chunks, shift, 13));
            assertThrows(IllegalArgumentException.class, () -> StructArray.overChunks(t, chunks, 6, 1));
        }
    }

    /** Strings of every length around the 8-byte words they are written in. */
    public interface Names {
        @Length(19)
        String name();

        void name(String v);

        @Length(8)
        String code();

        void code(String v);

        @Length(5)
        String tag();

        void tag(String v);
    }

    @Test
    void fixedStringsOfEveryLengthRoundTripAndPadWithZeros() {
        try (Arena arena = Arena.ofConfined()) {
            StructArray<Names> a = StructArray.allocate(StructType.of(Names.class), 2, arena);
            Names n = a.at(a.flyweight(), 0);
            String alphabet = "abcdefghijklmnopqrs";
            for (int len = 19; len >= 0; len--) { // shrinking: each write must clear the longer one before
                n.name(alphabet.substring(0, len));
                assertEquals(alphabet.substring(0, len), n.name());
                n.code(alphabet.substring(0, Math.min(len, 8)));
                assertEquals(alphabet.substring(0, Math.min(len, 8)), n.code());
            }
            n.name("é" + alphabet.substring(0, 17)); // 2 + 17 bytes of UTF-8: exactly fits
            assertEquals("é" + alphabet.substring(0, 17), n.name());
            n.name("");
            MemorySegment s = ((Flyweight) n).baseSegment();
            Names next = a.at(a.flyweight(), 1);
            next.name("neighbour");
            for (int len = 5; len >= 0; len--) { // a field shorter than a word: exactly its bytes are written
                n.tag(alphabet.substring(0, len));
                assertEquals(alphabet.substring(0, len), n.tag());
                assertEquals("neighbour", next.name());
            }
            n.tag("ñu");
            assertEquals("ñu", n.tag(), "Latin-1 is not ASCII: 3 bytes of UTF-8");
            n.code("größe");
            assertEquals("größe", n.code(), "7 bytes of UTF-8 in an 8-byte field");
            n.code("🙂🙂");
            assertEquals("🙂🙂", n.code(), "two surrogate pairs: 8 bytes of UTF-8");
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> n.tag("sixsix"));
            assertTrue(e.getMessage().contains("field=Names.tag holds 5 bytes"), e.getMessage());
            assertThrows(IllegalArgumentException.class, () -> n.tag("ñandú")); // 5 chars, 7 bytes
            assertEquals("ñu", n.tag(), "a refused write leaves the field as it was");
            n.code("A");
            IllegalArgumentException nul = assertThrows(IllegalArgumentException.class, () -> n.code("A\u0000B"));
            assertTrue(nul.getMessage().contains("field=Names.code") && nul.getMessage().contains("NUL"),
                    nul.getMessage());
            assertThrows(IllegalArgumentException.class, () -> n.name("A\u0000")); // even a trailing one
            assertEquals("A", n.code(), "a refused write leaves the field as it was");
            for (int i = 0; i < 19; i++) {
                assertEquals(0, s.get(ValueLayout.JAVA_BYTE, StructType.of(Names.class).offsetOf("name") + i));
            }
        }
    }

    /** Fields that cannot live in a struct. */
    public interface Bad {
        String name();
    }

    /** A record that holds a list. */
    public record BadRecord(int a, java.util.List<String> list) {}

    @Test
    void unsupportedFieldsFailAtCreationNamingTheField() {
        assertTrue(assertThrows(IllegalArgumentException.class, () -> StructType.of(Bad.class)).getMessage()
                .contains("field=Bad.name needs a positive @Length(n)"));
        assertTrue(assertThrows(IllegalArgumentException.class, () -> StructType.of(BadRecord.class)).getMessage()
                .contains("field=BadRecord.list type=java.util.List is not a struct field type"));
        assertFalse(assertThrows(IllegalArgumentException.class, () -> StructType.of(String.class)).getMessage().isEmpty());
    }

    /** A value interface as Chronicle Values (and JavaBeans) name accessors: get/set/is prefixes, an adder. */
    public interface BeanBalance {
        long getDollars();

        void setDollars(long d);

        long addDollars(long d);

        int getCents();

        void setCents(int c);

        int addCents(int c);

        boolean isOpen();

        void setOpen(boolean open);
    }

    /** Odd but valid: fields named setLimit and getLimit, each with a getter and a setter of its own name. */
    public interface PrefixedNames {
        long setLimit();

        void setLimit(long v);

        long getLimit();

        void getLimit(long v);
    }

    @Test
    void beanStyleAccessorsAreRefusedSayingHowAStructNamesThem() {
        // A Chronicle user's value interface was refused with "setters without getters: [setDollars, ...]"
        // though getDollars() was right there, or "field=BeanBalance.addCents: an indexed field needs
        // @Length(n)", depending on the order reflection listed the methods.
        String m = assertThrows(IllegalArgumentException.class, () -> StructType.of(BeanBalance.class)).getMessage();
        assertTrue(m.contains("struct=BeanBalance") && m.contains("getCents()") && m.contains("setCents(int)")
                && m.contains("int cents()") && m.contains("void cents(int)"), m);
        assertTrue(m.contains("addDollars") && m.contains("addCents"), "the adders are named too: " + m);
        StructType<PrefixedNames> t = StructType.of(PrefixedNames.class);
        assertEquals(16, t.byteSize(), "fields that only look like bean accessors stay accepted");
        assertEquals(8, t.offsetOf("setLimit"));
    }

    /** A record as a field of a struct interface, which a flyweight cannot read in place. */
    public interface HoldsARecord {
        StructSamples.Inner inner();

        long id();

        void id(long v);
    }

    /** A JDK interface as a field, with a setter and without. */
    public interface HoldsAList {
        java.util.List<String> names();

        void names(java.util.List<String> v);
    }

    /** The same, read only. */
    public interface ReadsAList {
        java.util.List<String> names();
    }

    @Test
    void aRecordInAStructInterfaceIsRefusedSayingWhatToDeclare() {
        // it used to be accepted, and the flyweight then failed with an internal NullPointerException
        String m = assertThrows(IllegalArgumentException.class, () -> StructType.of(HoldsARecord.class)).getMessage();
        assertTrue(m.contains("field=HoldsARecord.inner") && m.contains("a record cannot be a field of a struct interface")
                && m.contains("declare Inner as a struct interface"), m);
    }

    @Test
    void aListInAStructInterfaceIsNotTakenForANestedStruct() {
        for (Class<?> type : new Class<?>[] {HoldsAList.class, ReadsAList.class}) {
            String m = assertThrows(IllegalArgumentException.class, () -> StructType.of(type)).getMessage();
            assertTrue(m.contains("type=java.util.List is not a struct field type") && m.contains("nested struct interfaces")
                    && !m.contains("nested struct has no setter") && !m.contains("remove"), m);
        }
    }

    @Test
    void aFlyweightShowsItsTypeAndFieldValues() {
        StructSamples.PriceUpdate p = StructType.of(StructSamples.PriceUpdate.class).flyweight();
        assertEquals("PriceUpdate[points nowhere: position it with StructArray.at(flyweight, i) or moveTo(segment, "
                + "offset)]", p.toString(), "a flyweight never positioned says so");
        assertThrows(IndexOutOfBoundsException.class, p::time, "and an access fails as FFM fails it");
        try (Arena arena = Arena.ofConfined()) {
            StructArray<StructSamples.PriceUpdate> a = StructArray.allocate(StructType.of(StructSamples.PriceUpdate.class), 2, arena);
            a.at(p, 1);
            p.time(1_700_000_000_123L);
            p.price(101.25);
            p.bid(2, 42L);
            p.buy(true);
            p.instrument().symbol("EURUSD");
            p.instrument().market((byte) 3);
            assertEquals("PriceUpdate[bid=[0, 0, 42, 0], instrument=Instrument[id=0, market=3, symbol=\"EURUSD\"], "
                    + "price=101.25, time=1700000000123, quantity=0, buy=true]", p.toString());
        }
        assertTrue(p.toString().startsWith("PriceUpdate[cannot be read at offset=80"), p.toString());
    }
}
