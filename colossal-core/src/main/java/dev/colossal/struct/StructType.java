package dev.colossal.struct;

import java.lang.foreign.MemoryLayout;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.SequenceLayout;
import java.lang.foreign.StructLayout;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.lang.reflect.Array;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.lang.reflect.RecordComponent;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.TreeSet;

/**
 * A fixed-size struct derived from a Java type: its FFM {@link StructLayout} (natural alignment,
 * padding where needed) and the way to read and write it.
 *
 * <p>Two kinds of types describe structs:
 * <ul>
 *   <li>a <b>record</b> of primitives, {@link Length}-annotated strings and primitive arrays, and
 *       nested records: fields in declaration order, as a C compiler would lay them out. Values are
 *       copied in and out with {@link #read} and {@link #write}.</li>
 *   <li>an <b>interface</b> of accessors ({@code long price()} and {@code void price(long)},
 *       {@code @Length(4) long bid(int i)} and {@code void bid(int i, long v)}, a getter returning a
 *       nested struct interface): a generated {@link Flyweight} implements it over memory, so field
 *       access is a {@code static final} VarHandle call that allocates nothing. An interface says
 *       nothing about order, so fields are laid out by decreasing alignment, then by name: no inner
 *       padding, and the same layout on every JVM.</li>
 * </ul>
 *
 * <pre>{@code
 * public interface Tick { long time(); void time(long t); double price(); void price(double p); }
 * StructType<Tick> type = StructType.of(Tick.class);
 * type.describe();   // the layout as a table of offsets
 * }</pre>
 *
 * @param <T> the record or interface
 */
public final class StructType<T> {

    /**
     * One struct type per class, kept on the class itself, so a class loader that defined structs
     * can still be unloaded (a static map would hold its classes for good).
     */
    private static final ClassValue<StructType<?>> TYPES = new ClassValue<>() {
        @Override
        protected StructType<?> computeValue(Class<?> type) {
            return new StructType<>(type, fieldsOf(type, type.getSimpleName()));
        }
    };

    private final Class<T> javaType;
    private final List<StructField> fields;
    private final StructLayout layout;
    private final long[] offsets;
    private final RecordAccess recordAccess;
    private final MethodHandle flyweightConstructor;

    private StructType(Class<T> javaType, List<StructField> fields) {
        this.javaType = javaType;
        this.fields = List.copyOf(fields);
        this.layout = layoutOf(javaType, fields);
        this.offsets = new long[fields.size()];
        for (int i = 0; i < offsets.length; i++) {
            offsets[i] = layout.byteOffset(MemoryLayout.PathElement.groupElement(fields.get(i).name()));
        }
        this.recordAccess = javaType.isRecord() ? new RecordAccess(this) : null;
        this.flyweightConstructor = javaType.isInterface() ? FlyweightGenerator.generate(this) : null;
    }

    /**
     * Returns the struct type of a public record or interface, built once per type.
     *
     * @param type the record or interface
     * @param <T>  the type
     * @return the struct type
     * @throws IllegalArgumentException naming the field if a field cannot live in a fixed-size struct
     */
    @SuppressWarnings("unchecked")
    public static <T> StructType<T> of(Class<T> type) {
        Objects.requireNonNull(type, "type");
        return (StructType<T>) TYPES.get(type);
    }

    /**
     * Returns the record or interface this struct type was derived from.
     *
     * @return the Java type
     */
    public Class<T> javaType() {
        return javaType;
    }

    /**
     * Returns the struct's layout, with every field named and padding where alignment needs it.
     *
     * @return the layout; its {@code byteSize()} is a multiple of its alignment, so it is also the
     *     stride of an array of these structs
     */
    public StructLayout layout() {
        return layout;
    }

    /**
     * Returns the size of one struct, padding included.
     *
     * @return the size in bytes
     */
    public long byteSize() {
        return layout.byteSize();
    }

    /**
     * Returns the offset of a field, e.g. for code in another language that shares the memory.
     *
     * @param field the field's name
     * @return the field's offset in bytes
     * @throws IllegalArgumentException if there is no such field
     */
    public long offsetOf(String field) {
        for (int i = 0; i < fields.size(); i++) {
            if (fields.get(i).name().equals(field)) {
                return offsets[i];
            }
        }
        throw new IllegalArgumentException("field=" + field + " is not a field of struct " + javaType.getName()
                + "; fields: " + fields.stream().map(StructField::name).toList());
    }

    /**
     * Returns the layout as a table: offset, size and type of every field, for documentation and
     * for checking what another program must agree on.
     *
     * @return the table, one line per field
     */
    public String describe() {
        StringBuilder b = new StringBuilder(javaType.getSimpleName()).append(": ").append(byteSize())
                .append(" bytes, aligned to ").append(layout.byteAlignment()).append('\n');
        b.append(String.format("  %6s  %5s  %-12s %s%n", "offset", "size", "field", "type"));
        for (int i = 0; i < fields.size(); i++) {
            StructField f = fields.get(i);
            String type = switch (f.kind()) {
                case VALUE -> f.type().getName();
                case ARRAY -> f.type().getName() + "[" + f.length() + "]";
                case STRING -> "utf8[" + f.length() + "]";
                case STRUCT -> "struct " + f.type().getSimpleName();
            };
            b.append(String.format("  %6d  %5d  %-12s %s%n", offsets[i], f.layout().byteSize(), f.name(), type));
        }
        return b.toString();
    }

    /**
     * Creates a flyweight of this interface type, pointing nowhere until it is moved.
     *
     * @return a new flyweight; also a {@link Flyweight}
     * @throws UnsupportedOperationException if this type is a record
     */
    public T flyweight() {
        if (flyweightConstructor == null) {
            throw new UnsupportedOperationException("struct " + javaType.getName()
                    + " is a record: copy values with read and write, or declare an interface for a flyweight");
        }
        try {
            return javaType.cast(flyweightConstructor.invoke());
        } catch (RuntimeException | Error e) {
            throw e;
        } catch (Throwable e) {
            throw new IllegalStateException("could not create a flyweight of " + javaType.getName(), e);
        }
    }

    /**
     * Reads the record stored at {@code offset}.
     *
     * @param segment the segment
     * @param offset  the struct's first byte, aligned to {@code layout().byteAlignment()}
     * @return a new record
     * @throws UnsupportedOperationException if this type is an interface (use a flyweight)
     * @throws IndexOutOfBoundsException if the struct does not fit in the segment
     */
    public T read(MemorySegment segment, long offset) {
        return javaType.cast(records().read(segment, offset));
    }

    /**
     * Writes a record at {@code offset}.
     *
     * @param value   the record
     * @param segment the segment
     * @param offset  the struct's first byte, aligned to {@code layout().byteAlignment()}
     * @throws UnsupportedOperationException if this type is an interface (use a flyweight)
     * @throws IllegalArgumentException if a string or array does not fit its {@link Length}, or a string
     *                                  or nested record is null; nothing is written then
     */
    public void write(T value, MemorySegment segment, long offset) {
        records().write(Objects.requireNonNull(value, "value"), segment, offset);
    }

    @Override
    public String toString() {
        return "StructType[" + javaType.getName() + ", " + layout + "]";
    }

    List<StructField> fields() {
        return fields;
    }

    long offset(int field) {
        return offsets[field];
    }

    /**
     * A VarHandle {@code (MemorySegment, long fieldOffset[, long index])} for a value or array field,
     * from the field's own layout: callers add the field's offset to the struct's, so each access
     * checks its own bounds once rather than also re-checking the whole struct. The handles do not
     * check alignment: the struct layout's padding aligns every field, and arrays only place structs
     * at aligned offsets, so the test could never fail there, yet it costs each access about ten
     * instructions and its own trap, which made a 7-field struct write too big for C2 to inline.
     */
    VarHandle varHandle(int field) {
        StructField f = fields.get(field);
        if (f.kind() == StructField.Kind.ARRAY) {
            SequenceLayout array = (SequenceLayout) f.layout();
            return MemoryLayout.sequenceLayout(array.elementCount(), array.elementLayout().withByteAlignment(1))
                    .varHandle(MemoryLayout.PathElement.sequenceElement());
        }
        return ((ValueLayout) f.layout()).withByteAlignment(1).varHandle();
    }

    /**
     * The struct at {@code base} as {@code Name[field=value, ...]} in layout order, nested structs
     * the same way, for a flyweight's {@code toString}; a note instead if it cannot be read.
     */
    String text(MemorySegment s, long base) {
        String name = javaType.getSimpleName();
        if (s == MemorySegment.NULL) {
            return name + "[points nowhere: position it with StructArray.at(flyweight, i) or moveTo(segment, offset)]";
        }
        StringBuilder b = new StringBuilder(name).append('[');
        try {
            for (int i = 0; i < fields.size(); i++) {
                StructField f = fields.get(i);
                long at = base + offsets[i];
                b.append(i == 0 ? "" : ", ").append(f.name()).append('=');
                switch (f.kind()) {
                    case VALUE -> b.append((Object) varHandle(i).get(s, at));
                    case ARRAY -> {
                        Object array = Array.newInstance(f.type(), f.length());
                        MemorySegment.copy(s, valueLayout(f.type()), at, array, 0, f.length());
                        b.append('[');
                        for (int k = 0; k < f.length(); k++) {
                            b.append(k == 0 ? "" : ", ").append(Array.get(array, k));
                        }
                        b.append(']');
                    }
                    case STRING -> b.append('"').append(StructStrings.get(s, at, f.length())).append('"');
                    case STRUCT -> b.append(f.nested().text(s, at));
                }
            }
        } catch (RuntimeException e) { // a closed arena, or an offset past the end: say so rather than fail
            return name + "[cannot be read at offset=" + base + ": " + e.getMessage() + "]";
        }
        return b.append(']').toString();
    }

    /** {@code ()Object}: a new flyweight of this interface type. */
    MethodHandle flyweightFactory() {
        return flyweightConstructor;
    }

    RecordAccess records() {
        if (recordAccess == null) {
            throw new UnsupportedOperationException("struct " + javaType.getName()
                    + " is an interface: use a flyweight (StructArray.at or StructType.flyweight)");
        }
        return recordAccess;
    }

    private static StructLayout layoutOf(Class<?> type, List<StructField> fields) {
        List<MemoryLayout> elements = new ArrayList<>();
        long offset = 0;
        long alignment = 1;
        for (StructField f : fields) {
            long a = f.layout().byteAlignment();
            long padded = (offset + a - 1) / a * a;
            if (padded > offset) {
                elements.add(MemoryLayout.paddingLayout(padded - offset));
            }
            elements.add(f.layout());
            offset = padded + f.layout().byteSize();
            alignment = Math.max(alignment, a);
        }
        long size = (offset + alignment - 1) / alignment * alignment;
        if (size > offset) {
            elements.add(MemoryLayout.paddingLayout(size - offset));
        }
        return MemoryLayout.structLayout(elements.toArray(MemoryLayout[]::new)).withName(type.getSimpleName());
    }

    private static List<StructField> fieldsOf(Class<?> type, String path) {
        List<StructField> fields = type.isRecord() ? recordFields(type, path)
                : type.isInterface() ? interfaceFields(type, path) : null;
        if (fields != null && fields.isEmpty()) {
            throw new IllegalArgumentException("struct=" + path + " type=" + type.getName() + " has no fields");
        }
        if (fields != null) {
            return fields;
        }
        throw new IllegalArgumentException("struct=" + path + " type=" + type.getName()
                + " is neither a record nor an interface; declare the struct as one of them");
    }

    private static List<StructField> recordFields(Class<?> type, String path) {
        List<StructField> fields = new ArrayList<>();
        MethodHandles.Lookup lookup = MethodHandles.publicLookup();
        for (RecordComponent rc : type.getRecordComponents()) {
            String fieldPath = path + "." + rc.getName();
            MethodHandle getter;
            try {
                getter = lookup.unreflect(rc.getAccessor());
            } catch (IllegalAccessException e) {
                throw new IllegalArgumentException("field=" + fieldPath + ": record " + type.getName()
                        + " must be public, in a package its module exports to everyone ('exports "
                        + type.getPackageName() + ";': records are read through the public lookup, for which an "
                        + "export to dev.colossal.core alone is not enough)", e);
            }
            Length length = rc.getAnnotation(Length.class);
            fields.add(field(rc.getName(), rc.getType(), length, fieldPath, getter, null, null));
        }
        return fields;
    }

    private static List<StructField> interfaceFields(Class<?> type, String path) {
        if (!Modifier.isPublic(type.getModifiers())) {
            throw new IllegalArgumentException("struct=" + path + ": interface " + type.getName()
                    + " must be public (in a package exported to dev.colossal.core) for its flyweight class");
        }
        refuseBeanAccessors(type, path);
        Map<String, Method> getters = new LinkedHashMap<>();
        Map<String, Method> setters = new LinkedHashMap<>();
        for (Method m : type.getMethods()) {
            if (!Modifier.isAbstract(m.getModifiers())) {
                continue;
            }
            String fieldPath = path + "." + m.getName();
            if (Flyweight.RESERVED.contains(m.getName())) {
                throw new IllegalArgumentException("field=" + fieldPath + " clashes with Flyweight." + m.getName()
                        + "; rename it");
            }
            int params = m.getParameterCount();
            boolean indexed = params > 0 && m.getParameterTypes()[0] == int.class;
            if (m.getReturnType() != void.class && params == (indexed ? 1 : 0)) {
                getters.put(m.getName(), m);
            } else if (m.getReturnType() == void.class && (params == 1 || (params == 2 && indexed))) {
                setters.put(m.getName(), m);
            } else {
                throw new IllegalArgumentException("field=" + fieldPath + ": method " + m + " is neither a getter "
                        + "T name() / T name(int i) nor a setter void name(T) / void name(int i, T)");
            }
        }
        List<StructField> fields = new ArrayList<>();
        for (Method g : getters.values()) {
            String fieldPath = path + "." + g.getName();
            Method s = setters.remove(g.getName());
            boolean indexed = g.getParameterCount() == 1;
            Class<?> t = g.getReturnType();
            if (s != null && s.getParameterTypes()[s.getParameterCount() - 1] != t) {
                throw new IllegalArgumentException("field=" + fieldPath + ": setter takes "
                        + s.getParameterTypes()[s.getParameterCount() - 1].getName() + " but getter returns " + t.getName());
            }
            Length length = g.getAnnotation(Length.class);
            if (indexed && !t.isPrimitive()) {
                throw new IllegalArgumentException("field=" + fieldPath + ": indexed fields must be primitive arrays");
            }
            if (indexed && length == null) {
                throw new IllegalArgumentException("field=" + fieldPath + ": an indexed field needs @Length(n)");
            }
            Class<?> fieldType = indexed ? t.arrayType() : t;
            fields.add(field(g.getName(), fieldType, length, fieldPath, null, g, s));
        }
        if (!setters.isEmpty()) {
            throw new IllegalArgumentException("struct=" + path + ": setters without getters: " + setters.keySet());
        }
        // no declaration order is available for methods: decreasing alignment, then name
        fields.sort(Comparator.comparingLong((StructField f) -> -f.layout().byteAlignment()).thenComparing(StructField::name));
        return fields;
    }

    /**
     * Refuses an interface whose accessors are named as JavaBeans and Chronicle Values name them
     * ({@code long getX()} or {@code boolean isX()} with {@code void setX(v)}), saying how a struct
     * names them. Such an interface was refused for whichever of its methods reflection listed
     * first: "setters without getters: [setX]" though {@code getX()} was there, or "an indexed field
     * needs @Length(n)" for Chronicle's {@code int addX(int)}, neither of which says what is wrong.
     * A pair whose setter has a getter of its own name is a field named {@code setX}, and stays.
     */
    private static void refuseBeanAccessors(Class<?> type, String path) {
        Map<String, Method> noArgs = new LinkedHashMap<>();
        for (Method m : type.getMethods()) {
            if (Modifier.isAbstract(m.getModifiers()) && m.getParameterCount() == 0) {
                noArgs.put(m.getName(), m);
            }
        }
        TreeSet<String> renames = new TreeSet<>();
        TreeSet<String> others = new TreeSet<>();
        for (Method m : type.getMethods()) {
            String n = m.getName();
            if (!Modifier.isAbstract(m.getModifiers())) {
                continue;
            }
            if (n.matches("(add|addAtomic|compareAndSwap|getVolatile|setVolatile|setOrdered)[A-Z].*")) {
                others.add(n);   // Chronicle Values' own kinds of accessor, reported if the interface is refused
            }
            if (n.length() < 4 || !n.startsWith("set") || !Character.isUpperCase(n.charAt(3))
                    || m.getReturnType() != void.class || m.getParameterCount() != 1 || noArgs.containsKey(n)) {
                continue;
            }
            String property = n.substring(3);
            Method get = noArgs.getOrDefault("get" + property, noArgs.get("is" + property));
            if (get == null) {
                continue;
            }
            String field = Character.toLowerCase(property.charAt(0)) + property.substring(1);
            String t = m.getParameterTypes()[0].getSimpleName();
            renames.add(get.getName() + "()/" + n + "(" + t + ") as " + t + " " + field + "() and void " + field + "(" + t + ")");
        }
        if (!renames.isEmpty()) {
            throw new IllegalArgumentException("struct=" + path + ": a struct interface names a field's getter and setter"
                    + " alike, without get/is/set (not as JavaBeans or Chronicle Values do): declare "
                    + String.join("; ", renames)
                    + (others.isEmpty() ? "" : ". " + others + " have no counterpart: read the field, change it and write"
                    + " it back (a flyweight over the map's bytes changes only your copy)"));
        }
    }

    private static StructField field(String name, Class<?> t, Length length, String fieldPath, MethodHandle getter,
                                     Method accessor, Method setter) {
        if (t.isPrimitive() && t != void.class) {
            return new StructField(name, StructField.Kind.VALUE, t, 0, null, valueLayout(t).withName(name),
                    getter, accessor, setter);
        }
        if (t.isArray() && t.getComponentType().isPrimitive()) {
            int n = checkedLength(length, fieldPath);
            Class<?> e = t.getComponentType();
            return new StructField(name, StructField.Kind.ARRAY, e, n, null,
                    MemoryLayout.sequenceLayout(n, valueLayout(e)).withName(name), getter, accessor, setter);
        }
        if (t == String.class) {
            int n = checkedLength(length, fieldPath);
            return new StructField(name, StructField.Kind.STRING, t, n, null,
                    MemoryLayout.sequenceLayout(n, ValueLayout.JAVA_BYTE).withName(name), getter, accessor, setter);
        }
        // a record nests in a record, an interface in an interface; a JDK interface (List, Map, ...)
        // is no struct: it would be taken apart as one, down to its own methods
        boolean inInterface = accessor != null;
        boolean jdk = t.getName().startsWith("java.") || t.getName().startsWith("javax.");
        if (inInterface ? t.isInterface() && !jdk : t.isRecord()) {
            if (setter != null) {
                throw new IllegalArgumentException("field=" + fieldPath + ": a nested struct has no setter; "
                        + "write through the flyweight its getter returns");
            }
            StructType<?> nested = new StructType<>(t, fieldsOf(t, fieldPath));
            return new StructField(name, StructField.Kind.STRUCT, t, 0, nested, nested.layout().withName(name),
                    getter, accessor, setter);
        }
        if (inInterface && t.isRecord()) {
            // a flyweight reads in place, and a record getter would have to copy the record out on each call
            throw new IllegalArgumentException("field=" + fieldPath + " type=" + t.getName() + ": a record cannot be "
                    + "a field of a struct interface; declare " + t.getSimpleName() + " as a struct interface too "
                    + "(getters and setters of its fields), whose flyweight " + name + "() returns, or make "
                    + accessor.getDeclaringClass().getSimpleName() + " a record to copy whole values in and out");
        }
        throw new IllegalArgumentException("field=" + fieldPath + " type=" + t.getName() + " is not a struct field "
                + "type: a struct holds primitives, @Length(n) strings, @Length(n) primitive arrays and nested "
                + (inInterface ? "struct interfaces" : "records") + ", all of fixed size; keep variable-size data "
                + "such as collections elsewhere (in a map value through a Codec, for example)");
    }

    private static int checkedLength(Length length, String fieldPath) {
        if (length == null || length.value() <= 0) {
            throw new IllegalArgumentException("field=" + fieldPath + " needs a positive @Length(n): strings and "
                    + "arrays in a struct have a fixed size");
        }
        return length.value();
    }

    static ValueLayout valueLayout(Class<?> primitive) {
        if (primitive == boolean.class) {
            return ValueLayout.JAVA_BOOLEAN;
        } else if (primitive == byte.class) {
            return ValueLayout.JAVA_BYTE;
        } else if (primitive == short.class) {
            return ValueLayout.JAVA_SHORT;
        } else if (primitive == char.class) {
            return ValueLayout.JAVA_CHAR;
        } else if (primitive == int.class) {
            return ValueLayout.JAVA_INT;
        } else if (primitive == float.class) {
            return ValueLayout.JAVA_FLOAT;
        } else if (primitive == long.class) {
            return ValueLayout.JAVA_LONG;
        }
        return ValueLayout.JAVA_DOUBLE;
    }
}
