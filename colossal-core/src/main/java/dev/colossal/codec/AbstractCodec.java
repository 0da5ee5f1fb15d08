package dev.colossal.codec;

import java.lang.foreign.MemorySegment;
import java.util.Objects;

/**
 * The base of every codec Colossal builds: three package-private methods that nest without length
 * prefixes ({@link #size}, {@link #write}, {@link #read} from a moving {@link Input}), and the public
 * {@link Codec} methods around them, which check arguments and translate low-level failures into
 * {@link CodecException}s naming the type and offset.
 *
 * @param <T> the type of the values
 */
abstract class AbstractCodec<T> implements Codec<T> {

    private final String typeName;

    AbstractCodec(String typeName) {
        this.typeName = typeName;
    }

    /** The type's name in error messages. */
    final String typeName() {
        return typeName;
    }

    /** Exact size of a non-null value. */
    abstract long size(T value);

    /** Writes a non-null value; returns the offset after it. */
    abstract long write(T value, MemorySegment target, long offset);

    /** Reads one value starting at the input's position and moves past it. */
    abstract T read(Input in);

    /**
     * A canonical text of the byte shape this codec reads and writes; two codecs with the same text
     * read each other's bytes. Its hash is the codec's fingerprint.
     */
    abstract String schema();

    @Override
    public long encodedSize(T value) {
        return size(requireValue(value));
    }

    @Override
    public long encode(T value, MemorySegment target, long offset) {
        return write(requireValue(value), target, offset);
    }

    @Override
    public final T decode(MemorySegment source) {
        Input in = new Input(source);
        T value;
        try {
            value = read(in);
        } catch (IndexOutOfBoundsException e) {
            throw in.error(typeName, "input ends inside a value (truncated or corrupt)");
        } catch (StackOverflowError e) {
            throw in.error(typeName, "values nest too deeply (corrupt input, or a recursion deeper than "
                    + "the thread's stack)");
        }
        if (in.remaining() != 0) {
            throw in.error(typeName, in.remaining() + " bytes follow the value: the slice must hold exactly one value");
        }
        return value;
    }

    @Override
    public String toString() {
        return "Codec[" + typeName + "]";
    }

    private T requireValue(T value) {
        return Objects.requireNonNull(value, () -> "value=null: " + this
                + " encodes non-null values; wrap it with Codecs.nullable(codec) to encode nulls");
    }

    // The helpers below are what generated codecs call for a reference field: a presence byte, then
    // the value. They are static so that the JIT sees the (constant) codec as a plain argument.

    static <T> long sizeNullable(AbstractCodec<T> codec, T value) {
        return value == null ? 1 : 1 + codec.size(value);
    }

    static <T> long writeNullable(AbstractCodec<T> codec, T value, MemorySegment target, long offset) {
        if (value == null) {
            target.set(WireFormat.BYTE, offset, WireFormat.ABSENT);
            return offset + 1;
        }
        target.set(WireFormat.BYTE, offset, WireFormat.PRESENT);
        return codec.write(value, target, offset + 1);
    }

    static <T> T readNullable(AbstractCodec<T> codec, Input in) {
        return in.readPresence(codec.typeName) ? codec.read(in) : null;
    }
}
