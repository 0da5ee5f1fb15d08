package dev.colossal.codec;

import java.lang.foreign.MemorySegment;
import java.time.DateTimeException;
import java.time.Instant;
import java.util.UUID;

/** Fixed-size built-ins: boxed primitives, {@link UUID} and {@link Instant}. */
final class ScalarCodecs {

    private ScalarCodecs() {}

    static final AbstractCodec<Boolean> BOOLEAN = new AbstractCodec<>("Boolean") {
        @Override long size(Boolean v) { return 1; }
        @Override long write(Boolean v, MemorySegment s, long off) { return WireFormat.putBoolean(s, off, v); }
        @Override Boolean read(Input in) { return in.readBoolean("Boolean"); }
        @Override String schema() { return "bool"; }
    };

    static final AbstractCodec<Byte> BYTE = new AbstractCodec<>("Byte") {
        @Override long size(Byte v) { return 1; }
        @Override long write(Byte v, MemorySegment s, long off) { return WireFormat.putByte(s, off, v); }
        @Override Byte read(Input in) { return in.readByte(); }
        @Override String schema() { return "i8"; }
    };

    static final AbstractCodec<Short> SHORT = new AbstractCodec<>("Short") {
        @Override long size(Short v) { return 2; }
        @Override long write(Short v, MemorySegment s, long off) { return WireFormat.putShort(s, off, v); }
        @Override Short read(Input in) { return in.readShort(); }
        @Override String schema() { return "i16"; }
    };

    static final AbstractCodec<Character> CHAR = new AbstractCodec<>("Character") {
        @Override long size(Character v) { return 2; }
        @Override long write(Character v, MemorySegment s, long off) { return WireFormat.putChar(s, off, v); }
        @Override Character read(Input in) { return in.readChar(); }
        @Override String schema() { return "char"; }
    };

    static final AbstractCodec<Integer> INT = new AbstractCodec<>("Integer") {
        @Override long size(Integer v) { return 4; }
        @Override long write(Integer v, MemorySegment s, long off) { return WireFormat.putInt(s, off, v); }
        @Override Integer read(Input in) { return in.readInt(); }
        @Override String schema() { return "i32"; }
    };

    static final AbstractCodec<Long> LONG = new AbstractCodec<>("Long") {
        @Override long size(Long v) { return 8; }
        @Override long write(Long v, MemorySegment s, long off) { return WireFormat.putLong(s, off, v); }
        @Override Long read(Input in) { return in.readLong(); }
        @Override String schema() { return "i64"; }
    };

    static final AbstractCodec<Float> FLOAT = new AbstractCodec<>("Float") {
        @Override long size(Float v) { return 4; }
        @Override long write(Float v, MemorySegment s, long off) { return WireFormat.putFloat(s, off, v); }
        @Override Float read(Input in) { return in.readFloat(); }
        @Override String schema() { return "f32"; }
    };

    static final AbstractCodec<Double> DOUBLE = new AbstractCodec<>("Double") {
        @Override long size(Double v) { return 8; }
        @Override long write(Double v, MemorySegment s, long off) { return WireFormat.putDouble(s, off, v); }
        @Override Double read(Input in) { return in.readDouble(); }
        @Override String schema() { return "f64"; }
    };

    /** Most significant long, then least significant, as two little-endian longs. */
    static final AbstractCodec<UUID> UUID_CODEC = new AbstractCodec<>("UUID") {
        @Override long size(UUID v) { return 16; }

        @Override long write(UUID v, MemorySegment s, long off) {
            return WireFormat.putLong(s, WireFormat.putLong(s, off, v.getMostSignificantBits()),
                    v.getLeastSignificantBits());
        }

        @Override UUID read(Input in) {
            long msb = in.readLong();
            return new UUID(msb, in.readLong());
        }

        @Override String schema() { return "uuid"; }
    };

    /** Epoch seconds as a little-endian long, then nanoseconds 0..999,999,999 as an int. */
    static final AbstractCodec<Instant> INSTANT = new AbstractCodec<>("Instant") {
        @Override long size(Instant v) { return 12; }

        @Override long write(Instant v, MemorySegment s, long off) {
            return WireFormat.putInt(s, WireFormat.putLong(s, off, v.getEpochSecond()), v.getNano());
        }

        @Override Instant read(Input in) {
            long start = in.position();
            long seconds = in.readLong();
            int nanos = in.readInt();
            if (nanos < 0 || nanos > 999_999_999) {
                in.skip(start - in.position());
                throw in.error("Instant", "nanos=" + nanos + " is outside 0..999999999");
            }
            try {
                return Instant.ofEpochSecond(seconds, nanos);
            } catch (DateTimeException e) {
                in.skip(start - in.position());
                throw in.error("Instant", "seconds=" + seconds + " is outside Instant's range");
            }
        }

        @Override String schema() { return "instant"; }
    };
}
