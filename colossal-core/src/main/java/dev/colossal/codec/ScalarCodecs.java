package dev.colossal.codec;

import java.time.DateTimeException;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.LocalTime;
import java.util.UUID;

/** Fixed-size built-ins: boxed primitives, {@link UUID}, and the {@code java.time} values. */
final class ScalarCodecs {

    private ScalarCodecs() {}

    static final NamedCodec<Boolean> BOOLEAN = new NamedCodec<>("Boolean") {
        @Override public long size(Boolean v) { return 1; }
        @Override public void write(Boolean v, Output out) { out.writeBoolean(v); }
        @Override public Boolean read(Input in) { return in.readBoolean("Boolean"); }
        @Override public String schema() { return "bool"; }
    };

    static final NamedCodec<Byte> BYTE = new NamedCodec<>("Byte") {
        @Override public long size(Byte v) { return 1; }
        @Override public void write(Byte v, Output out) { out.writeByte(v); }
        @Override public Byte read(Input in) { return in.readByte(); }
        @Override public String schema() { return "i8"; }
    };

    static final NamedCodec<Short> SHORT = new NamedCodec<>("Short") {
        @Override public long size(Short v) { return 2; }
        @Override public void write(Short v, Output out) { out.writeShort(v); }
        @Override public Short read(Input in) { return in.readShort(); }
        @Override public String schema() { return "i16"; }
    };

    static final NamedCodec<Character> CHAR = new NamedCodec<>("Character") {
        @Override public long size(Character v) { return 2; }
        @Override public void write(Character v, Output out) { out.writeChar(v); }
        @Override public Character read(Input in) { return in.readChar(); }
        @Override public String schema() { return "char"; }
    };

    static final NamedCodec<Integer> INT = new NamedCodec<>("Integer") {
        @Override public long size(Integer v) { return 4; }
        @Override public void write(Integer v, Output out) { out.writeInt(v); }
        @Override public Integer read(Input in) { return in.readInt(); }
        @Override public String schema() { return "i32"; }
    };

    static final NamedCodec<Long> LONG = new NamedCodec<>("Long") {
        @Override public long size(Long v) { return 8; }
        @Override public void write(Long v, Output out) { out.writeLong(v); }
        @Override public Long read(Input in) { return in.readLong(); }
        @Override public String schema() { return "i64"; }
    };

    static final NamedCodec<Float> FLOAT = new NamedCodec<>("Float") {
        @Override public long size(Float v) { return 4; }
        @Override public void write(Float v, Output out) { out.writeFloat(v); }
        @Override public Float read(Input in) { return in.readFloat(); }
        @Override public String schema() { return "f32"; }
    };

    static final NamedCodec<Double> DOUBLE = new NamedCodec<>("Double") {
        @Override public long size(Double v) { return 8; }
        @Override public void write(Double v, Output out) { out.writeDouble(v); }
        @Override public Double read(Input in) { return in.readDouble(); }
        @Override public String schema() { return "f64"; }
    };

    /** Most significant long, then least significant, as two little-endian longs. */
    static final NamedCodec<UUID> UUID_CODEC = new NamedCodec<>("UUID") {
        @Override public long size(UUID v) { return 16; }

        @Override public void write(UUID v, Output out) {
            out.writeLong(v.getMostSignificantBits());
            out.writeLong(v.getLeastSignificantBits());
        }

        @Override public UUID read(Input in) {
            long msb = in.readLong();
            return new UUID(msb, in.readLong());
        }

        @Override public String schema() { return "uuid"; }
    };

    /** Epoch seconds as a little-endian long, then nanoseconds 0..999,999,999 as an int. */
    static final NamedCodec<Instant> INSTANT = new NamedCodec<>("Instant") {
        @Override public long size(Instant v) { return 12; }

        @Override public void write(Instant v, Output out) {
            out.writeLong(v.getEpochSecond());
            out.writeInt(v.getNano());
        }

        @Override public Instant read(Input in) {
            long start = in.position();
            long seconds = in.readLong();
            int nanos = in.readInt();
            if (nanos < 0 || nanos > 999_999_999) {
                throw invalid(in, start, "Instant", "nanos=" + nanos + " is outside 0..999999999");
            }
            try {
                return Instant.ofEpochSecond(seconds, nanos);
            } catch (DateTimeException e) {
                throw invalid(in, start, "Instant", "seconds=" + seconds + " is outside Instant's range");
            }
        }

        @Override public String schema() { return "instant"; }
    };

    /** Seconds as a little-endian long, then nanoseconds 0..999,999,999 as an int, as {@link #INSTANT}. */
    static final NamedCodec<Duration> DURATION = new NamedCodec<>("Duration") {
        @Override public long size(Duration v) { return 12; }

        @Override public void write(Duration v, Output out) {
            out.writeLong(v.getSeconds());
            out.writeInt(v.getNano());
        }

        @Override public Duration read(Input in) {
            long start = in.position();
            long seconds = in.readLong();
            int nanos = in.readInt();
            if (nanos < 0 || nanos > 999_999_999) {
                throw invalid(in, start, "Duration", "nanos=" + nanos + " is outside 0..999999999");
            }
            return Duration.ofSeconds(seconds, nanos);
        }

        @Override public String schema() { return "duration"; }
    };

    /** The day count from 1970-01-01 ({@link LocalDate#toEpochDay}) as a little-endian long. */
    static final NamedCodec<LocalDate> LOCAL_DATE = new NamedCodec<>("LocalDate") {
        @Override public long size(LocalDate v) { return 8; }
        @Override public void write(LocalDate v, Output out) { out.writeLong(v.toEpochDay()); }

        @Override public LocalDate read(Input in) {
            long start = in.position();
            long day = in.readLong();
            try {
                return LocalDate.ofEpochDay(day);
            } catch (DateTimeException e) {
                throw invalid(in, start, "LocalDate", "epoch day=" + day + " is outside LocalDate's range");
            }
        }

        @Override public String schema() { return "localdate"; }
    };

    /** The nanosecond of the day ({@link LocalTime#toNanoOfDay}) as a little-endian long. */
    static final NamedCodec<LocalTime> LOCAL_TIME = new NamedCodec<>("LocalTime") {
        @Override public long size(LocalTime v) { return 8; }
        @Override public void write(LocalTime v, Output out) { out.writeLong(v.toNanoOfDay()); }

        @Override public LocalTime read(Input in) {
            long start = in.position();
            long nanos = in.readLong();
            try {
                return LocalTime.ofNanoOfDay(nanos);
            } catch (DateTimeException e) {
                throw invalid(in, start, "LocalTime", "nano of day=" + nanos + " is outside 0..86399999999999");
            }
        }

        @Override public String schema() { return "localtime"; }
    };

    /** The date as {@link #LOCAL_DATE}, then the time as {@link #LOCAL_TIME}. */
    static final NamedCodec<LocalDateTime> LOCAL_DATE_TIME = new NamedCodec<>("LocalDateTime") {
        @Override public long size(LocalDateTime v) { return 16; }

        @Override public void write(LocalDateTime v, Output out) {
            out.writeLong(v.toLocalDate().toEpochDay());
            out.writeLong(v.toLocalTime().toNanoOfDay());
        }

        @Override public LocalDateTime read(Input in) {
            return LocalDateTime.of(LOCAL_DATE.read(in), LOCAL_TIME.read(in));
        }

        @Override public String schema() { return "localdatetime"; }
    };

    /** Moves back to where a value began and says why it is not valid, so the offset is the value's. */
    private static CodecException invalid(Input in, long start, String type, String what) {
        in.skip(start - in.position());
        return in.error(type, what);
    }
}
