package dev.colossal.codec;

import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.lang.reflect.AnnotatedElement;
import java.lang.reflect.Array;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * A record or class in a self-describing shape that survives changes to the type: every field is
 * tagged with a hash of its name and of its type's schema and prefixed with its length.
 *
 * <pre>
 *  [varint field count] then per field:
 *  [name id: 4][type id: 4][varint length][value: length bytes]
 * </pre>
 *
 * <p>Reading matches fields by name (or a name given by {@link Renamed}), in any order: a field the
 * bytes lack takes its default (0, false, null, or an empty Optional); a field the type no longer
 * has is skipped; a field whose type changed is refused with a {@link CodecException}, because no
 * conversion is safe to guess. Values inside the fields use the plain format, except enums, which
 * are written by name, anywhere in a field's type, so that an enum may gain, lose or reorder
 * constants: a constant the reading enum does not have is refused. Nested records must keep their
 * shape: a nested record that gained or lost fields is refused the same way, with a message that
 * says so.
 *
 * <p>Before enums were written by name, evolving codecs wrote their ordinals. Those fields are
 * still read, under their old type ids, while each enum has the constants it had then, in the same
 * order, with or without constants appended since.
 */
final class EvolvingCodec<T> extends NamedCodec<T> {

    /** What an evolving codec's schema starts with, wherever it is nested. */
    static final String SCHEMA_PREFIX = "evolving ";

    /** name id, type id and at least a one-byte length. */
    private static final int MIN_FIELD_BYTES = 9;
    /** The most old type ids a field holding enums by ordinal is read under (see {@link #ordinalTypeIds}). */
    private static final int MAX_ORDINAL_TYPE_IDS = 1024;

    private final String[] names;
    /** The ids of the fields' names, in field order, then of the names {@link Renamed} gives them. */
    private final int[] readIds;
    /** The field each of {@link #readIds} reads into. */
    private final int[] readFields;
    private final int[] typeIds;
    private final WireCodec<Object>[] codecs;
    /** For a field holding enums: its codec with enums by ordinal, as earlier versions wrote them; else null. */
    private final WireCodec<Object>[] ordinalCodecs;
    /** For a field holding enums: the type ids its values by ordinal may carry; else null. */
    private final int[][] ordinalTypeIds;
    private final boolean[] primitive;
    private final MethodHandle[] getters;
    private final MethodHandle constructor;
    private final Object[] defaults;
    private final String schema;

    @SuppressWarnings({"unchecked", "rawtypes"})
    EvolvingCodec(Class<T> type, MethodHandles.Lookup lookup) {
        super(type.getName());
        CodecResolver resolver = new CodecResolver(lookup, false, Map.of(), true);
        CodecResolver.Composite model = resolver.composite(type, type.getSimpleName());
        CodecResolver.Composite byOrdinal = resolver.enums().isEmpty() ? null
                : new CodecResolver(lookup, false).composite(type, type.getSimpleName());
        List<RecordCodecGenerator.Field> fields = model.fields();
        int n = fields.size();
        names = new String[n];
        typeIds = new int[n];
        codecs = new WireCodec[n];
        ordinalCodecs = new WireCodec[n];
        ordinalTypeIds = new int[n][];
        primitive = new boolean[n];
        getters = new MethodHandle[n];
        defaults = new Object[n];
        List<String> readNames = new ArrayList<>();
        List<Integer> readInto = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            RecordCodecGenerator.Field f = fields.get(i);
            names[i] = f.name();
            primitive[i] = f.type().isPrimitive();
            codecs[i] = (WireCodec<Object>) (primitive[i] ? CodecResolver.builtIn(f.type()) : f.codec());
            typeIds[i] = (int) WireFormat.fingerprint(codecs[i].schema());
            if (byOrdinal != null && !primitive[i]) {
                WireCodec<Object> old = (WireCodec<Object>) byOrdinal.fields().get(i).codec();
                if (!old.schema().equals(codecs[i].schema())) {
                    ordinalCodecs[i] = old;
                    ordinalTypeIds[i] = ordinalTypeIds(old.schema(), resolver.enums());
                }
            }
            getters[i] = f.getter().asType(MethodType.methodType(Object.class, Object.class));
            defaults[i] = primitive[i] ? Array.get(Array.newInstance(f.type(), 1), 0)
                    : f.codec() instanceof OptionalCodec<?> ? Optional.empty() : null;
            readNames.add(f.name());
            readInto.add(i);
        }
        for (int i = 0; i < n; i++) {
            for (String old : formerNames(type, names[i])) {
                readNames.add(old);
                readInto.add(i);
            }
        }
        readIds = new int[readNames.size()];
        readFields = readInto.stream().mapToInt(Integer::intValue).toArray();
        for (int k = 0; k < readIds.length; k++) {
            readIds[k] = (int) WireFormat.fingerprint(readNames.get(k));
            for (int j = 0; j < k; j++) {
                if (readIds[j] == readIds[k]) {
                    throw new IllegalArgumentException("type=" + type.getName() + " fields " + label(readNames, j)
                            + " and " + label(readNames, k) + " have the same 32-bit name id, so an evolving codec "
                            + "cannot tell them apart; rename one" + (k >= n ? ", or drop the @Renamed name" : ""));
                }
            }
        }
        constructor = model.constructor().asSpreader(Object[].class, n)
                .asType(MethodType.methodType(Object.class, Object[].class));
        schema = SCHEMA_PREFIX + model.schema();
    }

    private String label(List<String> readNames, int k) {
        return k < names.length ? names[k] : readNames.get(k) + " (@Renamed from, of " + names[readFields[k]] + ")";
    }

    /** The names {@link Renamed} gives the field, or none. */
    private static String[] formerNames(Class<?> type, String field) {
        AnnotatedElement declared;
        if (type.isRecord()) {
            declared = Arrays.stream(type.getRecordComponents()).filter(c -> c.getName().equals(field))
                    .findFirst().orElseThrow();
        } else {
            try {
                declared = type.getDeclaredField(field);
            } catch (NoSuchFieldException e) {
                throw new IllegalStateException("field=" + field + " of type=" + type.getName() + " vanished", e);
            }
        }
        Renamed renamed = declared.getAnnotation(Renamed.class);
        return renamed == null ? new String[0] : renamed.from();
    }

    /**
     * The type ids a field holding enums carried when they were written by ordinal: with each enum's
     * constants as they are now, or only its first ones, since an ordinal keeps its constant when
     * constants are appended (and only then). Past {@link #MAX_ORDINAL_TYPE_IDS} combinations of
     * several large enums the rest is left out: their data is refused, never misread, and each id
     * accepted is one more chance for another type's 32-bit id to match.
     */
    private static int[] ordinalTypeIds(String schema, Set<Class<?>> enums) {
        List<Class<?>> held = enums.stream()
                .filter(e -> schema.contains(EnumCodec.schema(e, e.getEnumConstants().length))).toList();
        Set<Integer> ids = new LinkedHashSet<>();
        withPrefixes(schema, held, 0, ids);
        return ids.stream().mapToInt(Integer::intValue).toArray();
    }

    private static void withPrefixes(String schema, List<Class<?>> enums, int k, Set<Integer> ids) {
        if (ids.size() >= MAX_ORDINAL_TYPE_IDS) {
            return;
        }
        if (k == enums.size()) {
            ids.add((int) WireFormat.fingerprint(schema));
            return;
        }
        Class<?> e = enums.get(k);
        int n = e.getEnumConstants().length;
        String now = EnumCodec.schema(e, n);
        for (int m = n; m >= 0; m--) {
            withPrefixes(schema.replace(now, EnumCodec.schema(e, m)), enums, k + 1, ids);
        }
    }

    @Override
    public long size(T v) {
        long total = WireFormat.varintSize(names.length);
        for (int i = 0; i < names.length; i++) {
            long n = valueSize(i, get(i, v));
            total += 8 + WireFormat.varintSize(length(n)) + n;
        }
        return total;
    }

    @Override
    public void write(T v, Output out) {
        out.writeVarint(names.length);
        for (int i = 0; i < names.length; i++) {
            Object value = get(i, v);
            out.writeInt(readIds[i]);
            out.writeInt(typeIds[i]);
            out.writeVarint(length(valueSize(i, value)));
            if (primitive[i]) {
                codecs[i].write(value, out);
            } else {
                WireCodec.writeNullable(codecs[i], value, out);
            }
        }
    }

    @Override
    @SuppressWarnings("unchecked")
    public T read(Input in) {
        Object[] args = defaults.clone();
        int count = in.readCount(typeName(), MIN_FIELD_BYTES);
        for (int k = 0; k < count; k++) {
            int nameId = in.readInt();
            int typeId = in.readInt();
            int length = in.readCount(typeName(), 1);
            int i = indexOf(nameId);
            if (i < 0) {
                in.skip(length); // a field this version no longer has
                continue;
            }
            WireCodec<Object> codec = typeIds[i] == typeId ? codecs[i] : byOrdinal(i, typeId);
            if (codec == null) {
                in.skip(-9 - WireFormat.varintSize(length));
                throw in.error(typeName(), "field=" + names[i] + " was written with another type (type id="
                        + Integer.toHexString(typeId) + ", now " + Integer.toHexString(typeIds[i]) + " for "
                        + codecs[i].schema() + "); " + advice(i));
            }
            long end = in.position() + length;
            try {
                args[i] = primitive[i] ? codec.read(in) : WireCodec.readNullable(codec, in);
            } catch (CodecException e) {
                throw new CodecException("field=" + names[i] + ": " + e.getMessage(), e);
            }
            if (in.position() != end) {
                throw in.error(typeName(), "field=" + names[i] + " length=" + length + " but its value took "
                        + (in.position() - end + length) + " bytes");
            }
        }
        try {
            return (T) constructor.invokeExact(args);
        } catch (RuntimeException | Error e) {
            throw e;
        } catch (Throwable e) {
            throw new IllegalStateException("constructor of type=" + typeName() + " failed", e);
        }
    }

    @Override
    public String schema() {
        return schema;
    }

    private int indexOf(int nameId) {
        for (int k = 0; k < readIds.length; k++) {
            if (readIds[k] == nameId) {
                return readFields[k];
            }
        }
        return -1;
    }

    /** What to do about a value of field {@code i} written with another type. */
    private String advice(int i) {
        String nested = "it holds type=" + codecs[i].typeName() + ", whose own fields changed: only the outer "
                + "type's fields evolve, a nested record or class must keep its shape (add the new fields to the "
                + "outer type, or store the nested value as a byte[] encoded with its own Codecs.evolving codec)";
        if (ordinalCodecs[i] == null) {
            return codecs[i] instanceof GeneratedCodec ? nested : "convert the data with the old type, or rename the field";
        }
        return "if only the constants of an enum in it changed, the value is from an earlier Colossal, which wrote "
                + "enums by ordinal and reads them only while the old constants keep their order, new ones after them: "
                + "restore that order, or convert the data with the old type" + (codecs[i] instanceof GeneratedCodec
                ? "; else " + nested : "");
    }

    /** The codec of field {@code i} by ordinal if its enums were written so under {@code typeId}, else null. */
    private WireCodec<Object> byOrdinal(int i, int typeId) {
        int[] ids = ordinalTypeIds[i];
        if (ids != null) {
            for (int id : ids) {
                if (id == typeId) {
                    return ordinalCodecs[i];
                }
            }
        }
        return null;
    }

    private Object get(int i, T v) {
        try {
            return getters[i].invokeExact((Object) v);
        } catch (RuntimeException | Error e) {
            throw e;
        } catch (Throwable e) {
            throw new IllegalStateException("getter of field=" + names[i] + " failed", e);
        }
    }

    private long valueSize(int i, Object value) {
        return primitive[i] ? codecs[i].size(value) : WireCodec.sizeNullable(codecs[i], value);
    }

    private int length(long n) {
        if (n > Integer.MAX_VALUE) {
            throw new IllegalArgumentException("a field of type=" + typeName() + " encodes to " + n
                    + " bytes; evolving codecs hold at most " + Integer.MAX_VALUE + " per field");
        }
        return (int) n;
    }
}
