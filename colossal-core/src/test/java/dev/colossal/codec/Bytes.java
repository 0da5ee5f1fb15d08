package dev.colossal.codec;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/** Encoding helpers for the tests. */
final class Bytes {

    private Bytes() {}

    /** Encodes into a fresh segment of exactly encodedSize bytes, checking encode's return value. */
    static <T> MemorySegment encode(Codec<T> codec, T value) {
        long size = codec.encodedSize(value);
        MemorySegment s = Arena.ofAuto().allocate(Math.max(1, size)).asSlice(0, size);
        assertEquals(size, codec.encode(value, s, 0), "encode must return offset + encodedSize");
        return s;
    }

    static <T> T roundTrip(Codec<T> codec, T value) {
        return codec.decode(encode(codec, value));
    }

    static byte[] array(MemorySegment s) {
        return s.toArray(ValueLayout.JAVA_BYTE);
    }

    static MemorySegment of(byte... bytes) {
        return MemorySegment.ofArray(bytes);
    }
}
