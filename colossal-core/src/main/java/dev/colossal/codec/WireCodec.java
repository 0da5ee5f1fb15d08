package dev.colossal.codec;

import java.lang.foreign.MemorySegment;
import java.util.Objects;

/**
 * What every codec Colossal builds can do beyond {@link Codec}: nest without length prefixes
 * ({@link #size}, {@link #write}, {@link #read} from a moving {@link Input}). The public
 * {@link Codec} methods are defaults here: they check arguments and translate low-level failures
 * into {@link CodecException}s naming the type and offset.
 *
 * <p>Codecs that hold other codecs are records: the JIT trusts a record's final fields, so once a
 * generated codec loads a nested codec as a constant, the whole tree below it folds into straight
 * code with no virtual calls.
 *
 * @param <T> the type of the values
 */
interface WireCodec<T> extends Codec<T> {

    /** @return the type's name in error messages */
    String typeName();

    /** Exact size of a non-null value. */
    long size(T value);

    /** Writes a non-null value. */
    void write(T value, Output out);

    /** Reads one value starting at the input's position and moves past it. */
    T read(Input in);

    /**
     * A canonical text of the byte shape this codec reads and writes; two codecs with the same text
     * read each other's bytes. Its hash is the codec's fingerprint.
     */
    String schema();

    @Override
    default long encodedSize(T value) {
        try {
            return size(requireValue(value));
        } catch (StackOverflowError e) {
            throw cyclic(e);
        }
    }

    @Override
    default long encode(T value, MemorySegment target, long offset) {
        return encode(this, requireValue(value), target, offset);
    }

    /** Writes {@code value}, which {@code codec} accepts, through the thread's {@link Output}. */
    static <T> long encode(WireCodec<T> codec, T value, MemorySegment target, long offset) {
        Output out = Output.open(target, offset);
        try {
            codec.write(value, out);
            return out.finish();
        } catch (StackOverflowError e) {
            throw codec.cyclic(e);
        } finally {
            out.close();
        }
    }

    private IllegalArgumentException cyclic(StackOverflowError e) {
        return new IllegalArgumentException("value of type=" + typeName() + " nests deeper than the thread's stack: "
                + "either it refers to itself (codecs write trees, not graphs with cycles), or it is a chain of records"
                + " too long to write by recursion (store such a chain as a list, or write it on a thread with a larger stack)", e);
    }

    @Override
    default T decode(MemorySegment source) {
        Input in = new Input(source);
        try {
            T value = read(in);
            if (in.remaining() != 0) {
                throw in.error(typeName(), in.remaining() + " bytes follow the value: the slice must hold exactly one value");
            }
            return value;
        } catch (IndexOutOfBoundsException e) {
            throw in.error(typeName(), "input ends inside a value (truncated or corrupt)");
        } catch (StackOverflowError e) {
            throw in.error(typeName(), "values nest too deeply (corrupt input, or a recursion deeper than "
                    + "the thread's stack)");
        } finally {
            in.close();
        }
    }

    private T requireValue(T value) {
        return Objects.requireNonNull(value, () -> "value=null: codec of " + typeName()
                + " encodes non-null values; wrap it with Codecs.nullable(codec) to encode nulls");
    }

    // The helpers below are what generated codecs call for a reference field: a presence byte, then
    // the value. They are static so that the JIT sees the (constant) codec as a plain argument.

    static <T> long sizeNullable(WireCodec<T> codec, T value) {
        return value == null ? 1 : 1 + codec.size(value);
    }

    static <T> void writeNullable(WireCodec<T> codec, T value, Output out) {
        codec.writeOrNull(value, out);
    }

    static <T> T readNullable(WireCodec<T> codec, Input in) {
        return codec.readOrNull(in);
    }

    /** Writes {@code [0]} for null, else {@code [1]} and the value; a codec may write the same bytes faster. */
    default void writeOrNull(T value, Output out) {
        if (value == null) {
            out.writeByte(WireFormat.ABSENT);
        } else {
            out.writeByte(WireFormat.PRESENT);
            write(value, out);
        }
    }

    /** Reads what {@link #writeOrNull} wrote; a codec may read the same bytes faster. */
    default T readOrNull(Input in) {
        return in.readPresence(this) ? read(in) : null;
    }
}
