/**
 * Codecs: values to bytes and back, in a documented, stable, little-endian format.
 *
 * <p>A {@link dev.colossal.codec.Codec} knows the exact size of a value, writes it into any
 * {@link java.lang.foreign.MemorySegment} at any offset (nothing is aligned) and reads it back from a
 * slice that holds exactly that value. {@link dev.colossal.codec.Codecs} makes them: built-ins,
 * composites, and generated codecs for records and classes.
 *
 * <h2>Byte format</h2>
 *
 * <p>There are no type tags and no field names in the bytes: the codec, that is the Java type,
 * says what comes next. Fixed-size values are little-endian; lengths and counts are unsigned
 * LEB128 varints (7 bits per byte, low bits first, high bit set on all but the last byte, at most
 * 5 bytes, never above {@code Integer.MAX_VALUE}).
 *
 * <pre>
 *  boolean, Boolean      [0|1]                                   1 byte
 *  byte, short, char     [b] [lo hi] [lo hi]                     1, 2, 2 bytes
 *  int, float            [b0 b1 b2 b3]                           4 bytes, float as IEEE 754 bits
 *  long, double          [b0 .. b7]                              8 bytes; every NaN as the canonical NaN
 *  String                [varint n][n bytes of UTF-8]            an unpaired surrogate is refused (*)
 *  byte[] / P[]          [varint count][count * size(P) bytes]   primitives in bulk, little-endian
 *  UUID                  [msb: 8][lsb: 8]
 *  Instant, Duration     [seconds: 8][nanos: 4]                  nanos in 0..999,999,999
 *  LocalDate             [epoch day: 8]
 *  LocalTime             [nano of day: 8]
 *  LocalDateTime         [epoch day: 8][nano of day: 8]
 *  BigInteger            [varint n][n bytes]                     two's complement, most significant first
 *  BigDecimal            [scale: 4][unscaled value as BigInteger]
 *  enum                  [varint ordinal]
 *  nullable reference    [0]  or  [1][value]                     every field, element, key, value
 *  Optional              [0]  or  [1][value]
 *  List, Set, T[]        [varint count] then count * ([0] or [1][element])
 *  Map                   [varint count] then count * (key, value), each [0] or [1][...]
 *  record, class         each component/field in declaration order; primitives as above,
 *                        references as nullable references; no header, no length
 *  versioned(codec)      [fingerprint: 8][value]
 *  evolving(type)        [varint field count] then per field:
 *                        [name id: 4][type id: 4][varint length][value: length bytes]
 *                        values as above, except enums anywhere in them:
 *                        [varint n][n bytes of UTF-8: the constant's name]
 * </pre>
 *
 * <p>(*) {@code encodedSize} refuses a string with an unpaired surrogate, which UTF-8 cannot carry,
 * with a {@link dev.colossal.codec.CodecException} naming its index; every Colossal container sizes
 * a value before it writes it. {@code encode} alone does not look for one (it would cost every
 * string a pass over its bytes) and writes the {@code '?'} that {@code String.getBytes} writes.
 *
 * <p>A collection declared as another type of the JDK's ({@code LinkedList}, {@code ArrayDeque},
 * {@code TreeSet}, {@code EnumSet}, {@code TreeMap}, {@code ConcurrentHashMap}, ...) has the bytes of
 * a List, a Set or a Map and is read back as the declared type (a sorted one in natural order).
 * Sets and maps are written in iteration order, except through {@link dev.colossal.codec.Codecs#canonical},
 * which writes them in the order of their elements' (entries') bytes so that equal values have
 * equal bytes: what map keys need.
 *
 * <p>Example: {@code record Point(int x, String label)} with {@code new Point(7, "hé")}:
 * <pre>
 *  07 00 00 00   01   03   68 C3 A9
 *  x = 7         label  n=3  'h' 'é' in UTF-8
 *                present
 * </pre>
 *
 * <p>Values are trees: an object reached twice is written twice and read back as two equal
 * objects, and a cycle is refused with an {@code IllegalArgumentException} when the stack runs out.
 * Shared references and cycles are out of scope.
 *
 * <h2>Schemas and evolution</h2>
 *
 * <p>Each codec has a schema text ({@link dev.colossal.codec.Codecs#schema}) naming every field and
 * type down the tree, and a 64-bit fingerprint of it ({@link dev.colossal.codec.Codecs#fingerprint}).
 * Containers store the fingerprint once and compare it on open; single values can carry it with
 * {@link dev.colossal.codec.Codecs#versioned}. Every change to a type's shape changes them, down
 * to the constants of an enum (added, removed, reordered or renamed) anywhere inside it: bytes are
 * positional and enums are ordinals, so no such change can be read across. Data that must outlive
 * changes to its type uses {@link dev.colossal.codec.Codecs#evolving}: fields are matched by name
 * (or a former name given by {@link dev.colossal.codec.Renamed}), added fields take their defaults,
 * removed fields are skipped, enums are written by name so that their constants may change (a
 * constant the enum no longer has is refused, naming it), and a field whose type changed is refused
 * with a message. Evolving codecs of earlier versions wrote enums by ordinal; those values are read
 * while the enum keeps its constants of then, in their order, with new ones only appended.
 *
 * <h2>Errors</h2>
 *
 * <p>Decoding bad bytes throws {@link dev.colossal.codec.CodecException} naming the type and the
 * offset: truncated input, a presence or boolean byte that is not 0 or 1, an enum ordinal out of
 * range, a length larger than the rest of the input (checked before anything is allocated, so a
 * forged length cannot exhaust memory), bytes left over after the value. Varints stop after 5
 * bytes, so no input makes a decoder loop.
 */
package dev.colossal.codec;
