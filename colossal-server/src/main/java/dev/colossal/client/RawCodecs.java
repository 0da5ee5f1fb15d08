package dev.colossal.client;

import dev.colossal.codec.Codec;
import dev.colossal.memory.SegmentBytes;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.charset.StandardCharsets;

/**
 * Codecs that write a value's bytes and nothing else, so that keys and values written through a
 * {@link RemoteMap} are the same bytes other Redis clients read and write: {@code utf8()} keys are
 * what {@code redis-cli GET name} looks up. The codecs of {@link dev.colossal.codec.Codecs} add a
 * length prefix (they are made to be nested), which is right when only {@code RemoteMap}s share the
 * data. Both codecs are only usable at the top level, where the slice they decode is the whole value.
 */
public final class RawCodecs {

    private RawCodecs() {}

    /** @return strings as their UTF-8 bytes, with no length prefix */
    public static Codec<String> utf8() {
        return Utf8.INSTANCE;
    }

    /** @return byte arrays as themselves, with no length prefix */
    public static Codec<byte[]> bytes() {
        return Bytes.INSTANCE;
    }

    private static final class Utf8 implements Codec<String> {
        static final Utf8 INSTANCE = new Utf8();

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
            return new String(SegmentBytes.toArray(source), StandardCharsets.UTF_8);
        }
    }

    private static final class Bytes implements Codec<byte[]> {
        static final Bytes INSTANCE = new Bytes();

        @Override
        public long encodedSize(byte[] value) {
            return value.length;
        }

        @Override
        public long encode(byte[] value, MemorySegment target, long offset) {
            MemorySegment.copy(value, 0, target, ValueLayout.JAVA_BYTE, offset, value.length);
            return offset + value.length;
        }

        @Override
        public byte[] decode(MemorySegment source) {
            return SegmentBytes.toArray(source);
        }
    }
}
