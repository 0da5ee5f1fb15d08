package dev.colossal.codec;

import static dev.colossal.codec.CodecRoundTripTest.assertContains;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

import java.lang.foreign.MemorySegment;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Test;

class CodecCorruptionTest {

    /** Every built-in decoder, and generated ones, by name. */
    static Map<String, Codec<?>> decoders() {
        Map<String, Codec<?>> all = new LinkedHashMap<>();
        for (Class<?> c : List.of(Boolean.class, Byte.class, Short.class, Character.class, Integer.class, Long.class,
                Float.class, Double.class, String.class, java.util.UUID.class, java.time.Instant.class, byte[].class,
                short[].class, char[].class, int[].class, long[].class, float[].class, double[].class, boolean[].class,
                Samples.Color.class, String[].class, Samples.Primitives.class, Samples.Everything.class,
                Samples.Node.class, Samples.Tree.class, Samples.Mutable.class, Samples.Immutable.class)) {
            all.put(c.getSimpleName(), Codecs.of(c));
        }
        all.put("List<String>", Codecs.list(Codecs.string()));
        all.put("Set<Long>", Codecs.set(Codecs.int64()));
        all.put("Map<String,byte[]>", Codecs.map(Codecs.string(), Codecs.bytes()));
        all.put("Optional<UUID>", Codecs.optional(Codecs.uuid()));
        all.put("nullable String", Codecs.nullable(Codecs.string()));
        all.put("versioned Everything", Codecs.versioned(Codecs.of(Samples.Everything.class)));
        all.put("evolving Everything", Codecs.evolving(Samples.Everything.class,
                java.lang.invoke.MethodHandles.publicLookup()));
        return all;
    }

    @Test
    void everyTruncationOfAValidEncodingIsACodecExceptionNamingTypeAndOffset() {
        Codec<Samples.Everything> codec = Codecs.of(Samples.Everything.class);
        Gen gen = new Gen(11);
        for (int v = 0; v < 30; v++) {
            MemorySegment bytes = Bytes.encode(codec, gen.everything());
            for (long cut = 0; cut < bytes.byteSize(); cut++) {
                long at = cut;
                CodecException e = assertThrows(CodecException.class, () -> codec.decode(bytes.asSlice(0, at)),
                        "cut at " + at + " of " + bytes.byteSize());
                assertContains(e.getMessage(), "type=");
                assertContains(e.getMessage(), "offset=");
            }
        }
    }

    @Test
    void aForgedLengthIsRefusedBeforeAnythingIsAllocated() {
        // varint 0x7FFFFFFF: a 2 GiB byte[] (or 16 GiB of longs) announced in 6 bytes
        byte[] forged = {(byte) 0xFF, (byte) 0xFF, (byte) 0xFF, (byte) 0xFF, 0x07, 0};
        for (Codec<?> c : List.of(Codecs.bytes(), Codecs.of(long[].class), Codecs.string(),
                Codecs.list(Codecs.string()), Codecs.map(Codecs.string(), Codecs.string()))) {
            CodecException e = assertThrows(CodecException.class, () -> c.decode(MemorySegment.ofArray(forged)));
            assertContains(e.getMessage(), "length=2147483647");
            assertContains(e.getMessage(), "offset=0");
        }
    }

    @Test
    void badTagsAndValuesNameWhatIsWrongAndWhere() {
        assertContains(assertThrows(CodecException.class,
                () -> Codecs.nullable(Codecs.string()).decode(Bytes.of((byte) 7))).getMessage(),
                "presence byte=7 is neither 0 (absent) nor 1 (present)");
        assertContains(assertThrows(CodecException.class,
                () -> Codecs.of(Samples.Color.class).decode(Bytes.of((byte) 3))).getMessage(),
                "type=dev.colossal.codec.Samples$Color at offset=0 of 1 bytes: ordinal=3 but the enum has 3 constants");
        assertContains(assertThrows(CodecException.class,
                () -> Codecs.of(Boolean.class).decode(Bytes.of((byte) 2))).getMessage(), "boolean byte=2");
        assertContains(assertThrows(CodecException.class,
                () -> Codecs.int32().decode(MemorySegment.ofArray(new byte[5]))).getMessage(), "1 bytes follow the value");
        assertContains(assertThrows(CodecException.class,
                () -> Codecs.bytes().decode(Bytes.of((byte) 0x80, (byte) 0x80, (byte) 0x80, (byte) 0x80, (byte) 0x80, (byte) 0)))
                .getMessage(), "varint does not fit");
        byte[] instant = new byte[12];
        instant[8] = (byte) 0xFF;
        instant[9] = (byte) 0xFF;
        instant[10] = (byte) 0xFF;
        instant[11] = (byte) 0x7F;
        assertContains(assertThrows(CodecException.class, () -> Codecs.instant().decode(MemorySegment.ofArray(instant))).getMessage(),
                "nanos=2147483647 is outside");
    }

    @Test
    void randomBytesFedToEveryDecoderGiveValuesOrCodecExceptionsAndNothingElse() {
        assertTimeoutPreemptively(Duration.ofSeconds(60), () -> {
            Random random = new Random(2026);
            for (Map.Entry<String, Codec<?>> e : decoders().entrySet()) {
                for (int i = 0; i < 3_000; i++) {
                    byte[] bytes = new byte[random.nextInt(i % 10 == 0 ? 2_000 : 40)];
                    random.nextBytes(bytes);
                    if (random.nextBoolean() && bytes.length > 0) {
                        bytes[0] = (byte) random.nextInt(3); // make small counts and presence bytes likely
                    }
                    try {
                        e.getValue().decode(MemorySegment.ofArray(bytes)); // a value is a fine outcome too
                    } catch (CodecException expected) {
                        assertContains(expected.getMessage(), "offset=");
                    } catch (RuntimeException | Error other) {
                        throw new AssertionError(e.getKey() + " threw " + other + " on "
                                + java.util.HexFormat.of().formatHex(bytes), other);
                    }
                }
            }
        });
    }

    @Test
    void flippedBytesInValidEncodingsNeverEscapeAsAnythingButCodecException() {
        Codec<Samples.Everything> codec = Codecs.of(Samples.Everything.class);
        Gen gen = new Gen(5);
        Random random = gen.random();
        for (int v = 0; v < 2_000; v++) {
            byte[] bytes = Bytes.array(Bytes.encode(codec, gen.everything()));
            for (int k = 0; k < 3; k++) {
                bytes[random.nextInt(bytes.length)] = (byte) random.nextInt();
            }
            try {
                codec.decode(MemorySegment.ofArray(bytes));
            } catch (CodecException expected) {
                assertContains(expected.getMessage(), "type=");
            }
        }
    }
}
