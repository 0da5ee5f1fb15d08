package dev.colossal.codec;

import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodType;
import java.lang.reflect.Array;
import java.util.List;
import java.util.Optional;

/**
 * A record or class in a self-describing shape that survives changes to the type: every field is
 * tagged with a hash of its name and of its type's schema and prefixed with its length.
 *
 * <pre>
 *  [varint field count] then per field:
 *  [name id: 4][type id: 4][varint length][value: length bytes]
 * </pre>
 *
 * <p>Reading matches fields by name, in any order: a field the bytes lack takes its default (0,
 * false, null, or an empty Optional); a field the type no longer has is skipped; a field whose type
 * changed is refused with a {@link CodecException}, because no conversion is safe to guess. Values
 * inside the fields use the plain format, so nested records must keep their shape: a nested record
 * that gained or lost fields is refused the same way, with a message that says so.
 */
final class EvolvingCodec<T> extends NamedCodec<T> {

    /** name id, type id and at least a one-byte length. */
    private static final int MIN_FIELD_BYTES = 9;

    private final String[] names;
    private final int[] nameIds;
    private final int[] typeIds;
    private final WireCodec<Object>[] codecs;
    private final boolean[] primitive;
    private final MethodHandle[] getters;
    private final MethodHandle constructor;
    private final Object[] defaults;
    private final String schema;

    @SuppressWarnings({"unchecked", "rawtypes"})
    EvolvingCodec(Class<T> type, CodecResolver.Composite model) {
        super(type.getName());
        List<RecordCodecGenerator.Field> fields = model.fields();
        int n = fields.size();
        names = new String[n];
        nameIds = new int[n];
        typeIds = new int[n];
        codecs = new WireCodec[n];
        primitive = new boolean[n];
        getters = new MethodHandle[n];
        defaults = new Object[n];
        for (int i = 0; i < n; i++) {
            RecordCodecGenerator.Field f = fields.get(i);
            names[i] = f.name();
            nameIds[i] = (int) WireFormat.fingerprint(f.name());
            primitive[i] = f.type().isPrimitive();
            codecs[i] = (WireCodec<Object>) (primitive[i] ? CodecResolver.builtIn(f.type()) : f.codec());
            typeIds[i] = (int) WireFormat.fingerprint(codecs[i].schema());
            getters[i] = f.getter().asType(MethodType.methodType(Object.class, Object.class));
            defaults[i] = primitive[i] ? Array.get(Array.newInstance(f.type(), 1), 0)
                    : f.codec() instanceof OptionalCodec<?> ? Optional.empty() : null;
            for (int j = 0; j < i; j++) {
                if (nameIds[j] == nameIds[i]) {
                    throw new IllegalArgumentException("type=" + type.getName() + " fields " + names[j] + " and "
                            + names[i] + " have the same 32-bit name id; rename one to use an evolving codec");
                }
            }
        }
        constructor = model.constructor().asSpreader(Object[].class, n)
                .asType(MethodType.methodType(Object.class, Object[].class));
        schema = "evolving " + model.schema();
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
            out.writeInt(nameIds[i]);
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
            if (typeIds[i] != typeId) {
                in.skip(-9 - WireFormat.varintSize(length));
                throw in.error(typeName(), "field=" + names[i] + " was written with another type (type id="
                        + Integer.toHexString(typeId) + ", now " + Integer.toHexString(typeIds[i]) + " for "
                        + codecs[i].schema() + "); " + (codecs[i] instanceof GeneratedCodec
                        ? "it holds type=" + codecs[i].typeName() + ", whose own fields changed: only the outer "
                        + "type's fields evolve, a nested record or class must keep its shape (add the new "
                        + "fields to the outer type, or store the nested value as a byte[] encoded with its "
                        + "own Codecs.evolving codec)"
                        : "convert the data with the old type, or rename the field"));
            }
            long end = in.position() + length;
            args[i] = primitive[i] ? codecs[i].read(in) : WireCodec.readNullable(codecs[i], in);
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
        for (int i = 0; i < nameIds.length; i++) {
            if (nameIds[i] == nameId) {
                return i;
            }
        }
        return -1;
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
