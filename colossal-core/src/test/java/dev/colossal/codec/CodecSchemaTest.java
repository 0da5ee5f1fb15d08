package dev.colossal.codec;

import static dev.colossal.codec.CodecRoundTripTest.assertContains;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.lang.foreign.MemorySegment;
import java.lang.invoke.MethodHandles;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class CodecSchemaTest {

    record UserV1(String name, int age) {}

    record UserV2(String name, int age, Optional<String> email, long score) {}

    record UserV3(long score, String name) {}

    record UserRetyped(String name, String age) {}

    /** UserV1 with age renamed, and then name renamed too. */
    record UserRenamed(@Renamed(from = {"login", "name"}) String handle, @Renamed(from = "age") int years) {}

    /** A former name that is another field's name now: the codec could not tell their values apart. */
    record UserClash(String name, @Renamed(from = "name") String title) {}

    /** A renamed field whose type changed as well. */
    record UserRenamedRetyped(String name, @Renamed(from = "age") String years) {}

    /** A class's field, declared with its former name. */
    public static final class Account {
        @Renamed(from = "age")
        private final int years;

        public Account(int years) {
            this.years = years;
        }

        public int years() {
            return years;
        }
    }

    record Address(String city) {}

    record AddressV2(String city, String zip) {}

    record Customer(String name, Address home) {}

    /** The same record as Customer in a later version, whose nested record gained a field. */
    record CustomerV2(String name, AddressV2 home) {}

    private static final MethodHandles.Lookup LOOKUP = MethodHandles.lookup();

    @Test
    void unsupportedTypesFailAtCreationNamingTheFieldPath() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> Codecs.of(Samples.Holder.class));
        assertContains(e.getMessage(), "field=Holder.inner.anything type=java.lang.Object cannot be encoded");
        record Raw(@SuppressWarnings("rawtypes") List items) {}
        assertContains(assertThrows(IllegalArgumentException.class, () -> Codecs.of(Raw.class, LOOKUP)).getMessage(),
                "field=Raw.items type=java.util.List cannot be encoded: declare its type arguments");
        record Wild(List<? extends Number> numbers) {}
        assertContains(assertThrows(IllegalArgumentException.class, () -> Codecs.of(Wild.class, LOOKUP)).getMessage(),
                "field=Wild.numbers[]");
        record Threads(Thread t) {}
        assertContains(assertThrows(IllegalArgumentException.class, () -> Codecs.of(Threads.class, LOOKUP)).getMessage(),
                "field=Threads.t type=java.lang.Thread");
    }

    @Test
    void fingerprintsFollowFieldNamesOrderAndTypes() {
        long v1 = Codecs.fingerprint(Codecs.of(UserV1.class, LOOKUP));
        assertEquals(v1, Codecs.fingerprint(Codecs.of(UserV1.class, LOOKUP)), "stable for the same type");
        assertNotEquals(v1, Codecs.fingerprint(Codecs.of(UserRetyped.class, LOOKUP)));
        assertEquals("record dev.colossal.codec.CodecSchemaTest$UserV1{name:string,age:int}",
                Codecs.schema(Codecs.of(UserV1.class, LOOKUP)));
    }

    @Test
    void versionedCodecsRefuseBytesOfAnotherVersion() {
        Codec<UserV1> v1 = Codecs.versioned(Codecs.of(UserV1.class, LOOKUP));
        Codec<UserRetyped> other = Codecs.versioned(Codecs.of(UserRetyped.class, LOOKUP));
        UserV1 u = new UserV1("ann", 41);
        assertEquals(u, Bytes.roundTrip(v1, u));
        CodecException e = assertThrows(CodecException.class, () -> other.decode(Bytes.encode(v1, u)));
        assertContains(e.getMessage(), "offset=0");
        assertContains(e.getMessage(), "written by another version");
    }

    @Test
    void evolvingCodecsFillAddedFieldsAndSkipRemovedOnes() {
        Codec<UserV1> v1 = Codecs.evolving(UserV1.class, LOOKUP);
        Codec<UserV2> v2 = Codecs.evolving(UserV2.class, LOOKUP);
        Codec<UserV3> v3 = Codecs.evolving(UserV3.class, LOOKUP);
        UserV1 old = new UserV1("bob", 30);
        assertEquals(old, Bytes.roundTrip(v1, old));
        assertEquals(new UserV2("bob", 30, Optional.empty(), 0), v2.decode(Bytes.encode(v1, old)));
        UserV2 newer = new UserV2("cy", 22, Optional.of("c@y"), 99);
        assertEquals(new UserV1("cy", 22), v1.decode(Bytes.encode(v2, newer)), "email and score skipped");
        assertEquals(new UserV3(99, "cy"), v3.decode(Bytes.encode(v2, newer)), "reordered, age dropped");
        UserV1 fromV3 = v1.decode(Bytes.encode(v3, new UserV3(5, null)));
        assertNull(fromV3.name());
        assertEquals(0, fromV3.age());
    }

    @Test
    void evolvingCodecsRefuseAFieldWhoseTypeChanged() {
        Codec<UserV1> v1 = Codecs.evolving(UserV1.class, LOOKUP);
        Codec<UserRetyped> retyped = Codecs.evolving(UserRetyped.class, LOOKUP);
        CodecException e = assertThrows(CodecException.class,
                () -> retyped.decode(Bytes.encode(v1, new UserV1("d", 1))));
        assertContains(e.getMessage(), "field=age was written with another type");
        assertContains(e.getMessage(), "offset=");
    }

    @Test
    void evolvingCodecsRefuseANestedRecordWhoseShapeChangedSayingWhy() {
        Codec<Customer> v1 = Codecs.evolving(Customer.class, LOOKUP);
        Codec<CustomerV2> v2 = Codecs.evolving(CustomerV2.class, LOOKUP);
        Customer old = new Customer("ann", new Address("Oslo"));
        assertEquals(old, Bytes.roundTrip(v1, old));
        CodecException e = assertThrows(CodecException.class, () -> v2.decode(Bytes.encode(v1, old)));
        assertContains(e.getMessage(), "field=home was written with another type");
        assertContains(e.getMessage(), "a nested record or class must keep its shape");
        assertContains(e.getMessage(), "offset=");
        e = assertThrows(CodecException.class, () -> v1.decode(Bytes.encode(v2,
                new CustomerV2("bo", new AddressV2("Rome", "00100")))));
        assertContains(e.getMessage(), "type=" + AddressV2.class.getName().replace("V2", ""));
    }

    @Test
    void evolvingCodecsReadARenamedFieldUnderTheNamesRenamedGives() {
        MemorySegment old = Bytes.encode(Codecs.evolving(UserV1.class, LOOKUP), new UserV1("ann", 41));
        Codec<UserRenamed> renamed = Codecs.evolving(UserRenamed.class, LOOKUP);
        assertEquals(new UserRenamed("ann", 41), renamed.decode(old));
        UserRenamed now = new UserRenamed("bo", 7);
        assertEquals(now, Bytes.roundTrip(renamed, now), "written under the new names");
        assertEquals(41, Codecs.evolving(Account.class, LOOKUP).decode(old).years());
        assertEquals(new UserV1(null, 0), Codecs.evolving(UserV1.class, LOOKUP).decode(Bytes.encode(renamed, now)),
                "an older reader knows only the old names: the values read as defaults");
        CodecException e = assertThrows(CodecException.class,
                () -> Codecs.evolving(UserRenamedRetyped.class, LOOKUP).decode(old));
        assertContains(e.getMessage(), "field=years was written with another type");
        IllegalArgumentException clash = assertThrows(IllegalArgumentException.class,
                () -> Codecs.evolving(UserClash.class, LOOKUP));
        assertContains(clash.getMessage(), "fields name and name (@Renamed from, of title) have the same 32-bit name id");
        assertContains(clash.getMessage(), "drop the @Renamed name");
    }
}
