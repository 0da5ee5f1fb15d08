package dev.colossal.codec;

import java.lang.invoke.MethodHandles;
import java.lang.reflect.Type;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;
import java.util.regex.Pattern;

/**
 * Where codecs come from: built-ins, composites of codecs, and generated codecs for records and
 * classes.
 *
 * <pre>{@code
 * record Trade(String symbol, long quantity, double price, List<String> tags) {}
 *
 * Codec<Trade> codec = Codecs.of(Trade.class);
 * MemorySegment bytes = arena.allocate(codec.encodedSize(trade));
 * codec.encode(trade, bytes, 0);
 * Trade back = codec.decode(bytes);
 * }</pre>
 *
 * <p>{@link #of(Class)} generates, once per type, a hidden class whose methods touch each field in
 * order with no reflection; it needs the type, its canonical constructor (records) or its fields
 * and constructor (classes) to be public. For other types pass a lookup that can see them:
 * {@code Codecs.of(MyType.class, MethodHandles.lookup())}. Unsupported types fail here, with the
 * path of the field that holds them, never later while encoding.
 *
 * <p>Every codec made here encodes non-null values at the top level (wrap it with
 * {@link #nullable(Codec)} for nulls); fields, elements, keys and values may be null. The byte format
 * is described in the package documentation.
 */
public final class Codecs {

    /**
     * The codec of each class, kept on the class itself: a class loader whose records were encoded
     * here can still be unloaded, which a static map of classes would prevent.
     */
    private static final ClassValue<WireCodec<?>> PUBLIC = new ClassValue<>() {
        @Override
        protected WireCodec<?> computeValue(Class<?> type) {
            return resolvePublic(type);
        }
    };

    /** A set or map anywhere in a schema text (names of types and fields never hold a '<'). */
    private static final Pattern ITERATION_ORDERED = Pattern.compile("(?<![\\w$.])(set|map)<");

    private Codecs() {}

    /**
     * Returns the codec of a public type: a built-in, an enum, an array, a record or a class.
     *
     * @param type the type
     * @param <T>  the type
     * @return the codec, shared and thread-safe
     * @throws IllegalArgumentException naming the field path if the type, or a type inside it, cannot
     *                                  be encoded or is not accessible
     */
    @SuppressWarnings("unchecked")
    public static <T> Codec<T> of(Class<T> type) {
        return (Codec<T>) ofType(type);
    }

    /**
     * Returns the codec of a type that {@code lookup} can access, including non-public records and
     * classes and private fields. The lookup must have full privilege in the type's package when
     * fields are private ({@code MethodHandles.lookup()} in the type's own class or package).
     *
     * @param type   the type
     * @param lookup a lookup that can access the type's constructor and fields or accessors
     * @param <T>    the type
     * @return a new codec
     * @throws IllegalArgumentException naming the field path if a type cannot be encoded or accessed
     */
    @SuppressWarnings("unchecked")
    public static <T> Codec<T> of(Class<T> type, MethodHandles.Lookup lookup) {
        Objects.requireNonNull(lookup, "lookup");
        return (Codec<T>) new CodecResolver(lookup, false).resolve(type, type.getSimpleName());
    }

    /**
     * Returns the codec of a type that {@code lookup} can access, as {@link #of(Class, MethodHandles.Lookup)}
     * does, with codecs of your own for some types: wherever one of them appears (as the type itself,
     * a field, an element, a key or a value), its codec is used, before any built-in. This is the way
     * to encode a record holding a type that has no built-in codec:
     *
     * <pre>{@code
     * record Order(long id, Money total) {}
     * Codec<Order> orders = Codecs.of(Order.class, MethodHandles.lookup(), Map.of(Money.class, moneyCodec));
     * }</pre>
     *
     * <p>A codec not made by this class is nested with a varint length in front of its bytes, and its
     * schema names its class, not its shape: changing the codec does not change the fingerprint.
     *
     * @param type   the type
     * @param lookup a lookup that can access the type's constructor and fields or accessors
     * @param codecs a codec for each type it maps; each must encode values of the class it is mapped
     *               from (a {@code Map<Class<X>, Codec<X>>} in spirit)
     * @param <T>    the type
     * @return a new codec
     * @throws IllegalArgumentException naming the field path if a type cannot be encoded or accessed
     */
    @SuppressWarnings("unchecked")
    public static <T> Codec<T> of(Class<T> type, MethodHandles.Lookup lookup, Map<Class<?>, ? extends Codec<?>> codecs) {
        Objects.requireNonNull(lookup, "lookup");
        Map<Class<?>, WireCodec<?>> custom = new HashMap<>();
        codecs.forEach((c, codec) -> custom.put(Objects.requireNonNull(c, "type"), internal(codec)));
        return (Codec<T>) new CodecResolver(lookup, false, custom).resolve(type, type.getSimpleName());
    }

    /**
     * Returns the codec of a generic type such as {@code List<Trade>} or {@code Map<String, long[]>},
     * usually obtained from a field or method signature.
     *
     * @param type a class or a parameterized type
     * @return the codec; shared for a class, made anew for a parameterized type (keep it rather than
     *     asking again per value)
     * @throws IllegalArgumentException if the type cannot be encoded or accessed
     */
    public static Codec<?> ofType(Type type) {
        Objects.requireNonNull(type, "type");
        return type instanceof Class<?> c ? PUBLIC.get(c) : resolvePublic(type);
    }

    private static WireCodec<?> resolvePublic(Type type) {
        return new CodecResolver(MethodHandles.publicLookup(), true).resolve(type, simpleName(type));
    }

    /**
     * Returns strings as a varint byte length and UTF-8.
     *
     * @return strings as a varint byte length and UTF-8
     */
    public static Codec<String> string() {
        return StringCodec.INSTANCE;
    }

    /**
     * Returns byte arrays as a varint length and the bytes.
     *
     * @return byte arrays as a varint length and the bytes
     */
    public static Codec<byte[]> bytes() {
        return ArrayCodecs.BYTES;
    }

    /**
     * Returns ints as 4 little-endian bytes.
     *
     * @return ints as 4 little-endian bytes
     */
    public static Codec<Integer> int32() {
        return ScalarCodecs.INT;
    }

    /**
     * Returns longs as 8 little-endian bytes.
     *
     * @return longs as 8 little-endian bytes
     */
    public static Codec<Long> int64() {
        return ScalarCodecs.LONG;
    }

    /**
     * Returns doubles as 8 little-endian bytes (IEEE 754 bits).
     *
     * @return doubles as 8 little-endian bytes (IEEE 754 bits)
     */
    public static Codec<Double> float64() {
        return ScalarCodecs.DOUBLE;
    }

    /**
     * Returns UUIDs as 16 bytes: most then least significant long, little-endian.
     *
     * @return UUIDs as 16 bytes: most then least significant long, little-endian
     */
    public static Codec<UUID> uuid() {
        return ScalarCodecs.UUID_CODEC;
    }

    /**
     * Returns instants as epoch seconds (8 bytes) and nanoseconds (4 bytes).
     *
     * @return instants as epoch seconds (8 bytes) and nanoseconds (4 bytes)
     */
    public static Codec<Instant> instant() {
        return ScalarCodecs.INSTANT;
    }

    /**
     * Returns constants as a varint ordinal.
     *
     * @param type the enum
     * @param <E>  the enum
     * @return constants as a varint ordinal
     */
    public static <E extends Enum<E>> Codec<E> enumeration(Class<E> type) {
        return new EnumCodec<>(type);
    }

    /**
     * Returns a codec of the same values or {@code null}, with a presence byte in front.
     *
     * @param codec the values' codec
     * @param <T>   the value type
     * @return a codec of the same values or {@code null}, with a presence byte in front
     */
    public static <T> Codec<T> nullable(Codec<T> codec) {
        return NullableCodec.of(internal(codec));
    }

    /**
     * Returns lists (decoded as {@link ArrayList}) of nullable elements.
     *
     * @param element the elements' codec
     * @param <E>     the element type
     * @return lists (decoded as {@link ArrayList}) of nullable elements
     */
    public static <E> Codec<List<E>> list(Codec<E> element) {
        return CollectionCodec.of("List", internal(element), ArrayList::new);
    }

    /**
     * Returns sets (decoded as {@link LinkedHashSet}, in the order written) of nullable elements.
     *
     * @param element the elements' codec
     * @param <E>     the element type
     * @return sets (decoded as {@link LinkedHashSet}, in the order written) of nullable elements
     */
    public static <E> Codec<Set<E>> set(Codec<E> element) {
        return CollectionCodec.of("Set", internal(element), LinkedHashSet::new);
    }

    /**
     * Returns maps (decoded as {@link LinkedHashMap}, in the order written) of nullable keys and values.
     *
     * @param keys   the keys' codec
     * @param values the values' codec
     * @param <K>    the key type
     * @param <V>    the value type
     * @return maps (decoded as {@link LinkedHashMap}, in the order written) of nullable keys and values
     */
    public static <K, V> Codec<Map<K, V>> map(Codec<K> keys, Codec<V> values) {
        return MapCodec.of(internal(keys), internal(values), LinkedHashMap::new);
    }

    /**
     * Returns optionals as a presence byte and the value.
     *
     * @param value the present value's codec
     * @param <T>   the value type
     * @return optionals as a presence byte and the value
     */
    public static <T> Codec<Optional<T>> optional(Codec<T> value) {
        return OptionalCodec.of(internal(value));
    }

    /**
     * Returns a codec that writes the 8-byte {@linkplain #fingerprint fingerprint} before each value
     * and refuses, with a {@link CodecException}, bytes written under another schema. Containers that
     * store many values of one type should instead store the fingerprint once and compare it on open.
     *
     * @param codec the codec to guard
     * @param <T>   the value type
     * @return the guarded codec
     */
    public static <T> Codec<T> versioned(Codec<T> codec) {
        return VersionedCodec.of(internal(codec));
    }

    /**
     * Returns a codec for a record or class whose bytes survive changes to the type: each field is
     * tagged with its name and type and prefixed with its length, so data written by an older or newer
     * version decodes with added fields at their defaults (0, false, null, empty Optional) and removed
     * fields skipped; a field whose type changed is refused with a {@link CodecException}. A renamed
     * field reads its old values if it names its former names with {@link Renamed}, else it reads as
     * its default. Enums, anywhere in a field's type, are written by name, so an enum may gain, lose or
     * reorder constants: a value holding a constant the reading enum lacks is refused with a
     * {@link CodecException} naming the field and the constant. Nested records and classes must keep
     * their fields. It costs about 9 bytes per field over {@link #of(Class)}, and an enum's name in
     * place of its ordinal: use it for data that outlives a release.
     *
     * @param type   a record or class
     * @param lookup a lookup that can access it, e.g. {@code MethodHandles.publicLookup()} for public types
     * @param <T>    the type
     * @return the codec
     * @throws IllegalArgumentException naming the field path if a type cannot be encoded or accessed
     */
    public static <T> Codec<T> evolving(Class<T> type, MethodHandles.Lookup lookup) {
        Objects.requireNonNull(lookup, "lookup");
        if (type.isPrimitive() || type.isArray() || type.isEnum() || type.isInterface() || CodecResolver.builtIn(type) != null) {
            throw new IllegalArgumentException("type=" + type.getName()
                    + " is not a record or class; evolving codecs tag the fields of records and classes");
        }
        return new EvolvingCodec<>(type, lookup);
    }

    /**
     * Returns a codec that writes equal values as equal bytes, for keys that are compared by their
     * bytes (as {@link dev.colossal.map.ColossalMap} compares them): sets and maps anywhere inside the
     * value are written in the order of their elements' (entries') encoded bytes instead of in
     * iteration order, so {@code Set.of("x", "y")} and {@code Set.of("y", "x")} give the same bytes.
     * The byte shape and the schema are the codec's own, so each codec reads what the other wrote.
     * Writing a set or map costs a sort of its encoded elements; every other value is written as
     * before (NaN is always written as the canonical NaN and -0.0 as itself, as {@code Double.equals}
     * sees them).
     *
     * @param codec a codec
     * @param <T>   the value type
     * @return a canonical codec; {@code codec} itself if nothing in its values depends on iteration
     *     order, or if it was not made by this class (its bytes are its own business)
     */
    public static <T> Codec<T> canonical(Codec<T> codec) {
        Objects.requireNonNull(codec, "codec");
        if (!(codec instanceof WireCodec<T> ours) || ours instanceof CanonicalCodec<T>
                || !ITERATION_ORDERED.matcher(ours.schema()).find()) {
            return codec;
        }
        // a nullable codec keeps its own public methods, which accept null
        return ours instanceof NullableCodec<T> n ? new NullableCodec<>(n.typeName(), new CanonicalCodec<>(n.value()))
                : new CanonicalCodec<>(ours);
    }

    /**
     * Returns a 64-bit hash of the codec's schema: the field names, their order and their types, all
     * the way down, including each enum's constants in order. Two codecs with the same fingerprint
     * read each other's bytes.
     *
     * @param codec a codec made by this class
     * @return the fingerprint
     */
    public static long fingerprint(Codec<?> codec) {
        return WireFormat.fingerprint(schema(codec));
    }

    /**
     * Returns what a container of many values of this codec records once and compares when it
     * opens again (as {@link #versioned} advises): the {@linkplain #fingerprint fingerprint}, or 0
     * when stored bytes do not depend on the schema staying the same, so that no check is due:
     * values of an {@linkplain #evolving evolving} codec, anywhere inside, carry their field
     * names and read across versions, and a codec not made by this class has a shape of its own,
     * which no schema describes.
     *
     * @param codec a codec
     * @return the fingerprint to record, or 0 for none
     */
    public static long storedFingerprint(Codec<?> codec) {
        WireCodec<?> ours = internal(codec);
        return ours instanceof ForeignCodec<?> || ours.schema().contains(EvolvingCodec.SCHEMA_PREFIX) ? 0
                : WireFormat.fingerprint(ours.schema());
    }

    /**
     * Returns the canonical text of the codec's byte shape.
     *
     * @param codec a codec made by this class
     * @return the canonical text of the codec's byte shape, e.g.
     *     {@code record com.example.Trade{symbol:string,quantity:long}}
     */
    public static String schema(Codec<?> codec) {
        return internal(codec).schema();
    }

    /** Our own codecs nest as they are; anyone else's gets a length prefix so its decode sees one slice. */
    private static <T> WireCodec<T> internal(Codec<T> codec) {
        Objects.requireNonNull(codec, "codec");
        return codec instanceof WireCodec<T> ours ? ours : new ForeignCodec<>(codec);
    }

    private static String simpleName(Type type) {
        return type instanceof Class<?> c ? c.getSimpleName() : type.getTypeName();
    }
}
