package dev.colossal.map;

import dev.colossal.codec.Codec;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.charset.StandardCharsets;

/** Tiny codecs for the map's tests; the real ones live in the codec package. */
final class TestCodecs {

    static final Codec<String> STRING = new Codec<>() {
        @Override
        public long encodedSize(String value) {
            return value.getBytes(StandardCharsets.UTF_8).length;
        }

        @Override
        public long encode(String value, MemorySegment target, long offset) {
            byte[] b = value.getBytes(StandardCharsets.UTF_8);
            MemorySegment.copy(b, 0, target, ValueLayout.JAVA_BYTE, offset, b.length);
            return offset + b.length;
        }

        @Override
        public String decode(MemorySegment source) {
            return new String(source.toArray(ValueLayout.JAVA_BYTE), StandardCharsets.UTF_8);
        }
    };

    static final Codec<Long> LONG = new Codec<>() {
        @Override
        public long encodedSize(Long value) {
            return Long.BYTES;
        }

        @Override
        public long encode(Long value, MemorySegment target, long offset) {
            target.set(ValueLayout.JAVA_LONG_UNALIGNED, offset, value);
            return offset + Long.BYTES;
        }

        @Override
        public Long decode(MemorySegment source) {
            return source.get(ValueLayout.JAVA_LONG_UNALIGNED, 0);
        }
    };

    private TestCodecs() {
    }
}
