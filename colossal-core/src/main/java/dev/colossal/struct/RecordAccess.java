package dev.colossal.struct;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.lang.invoke.VarHandle;
import java.lang.reflect.Array;
import java.util.List;

/**
 * Copies records in and out of their struct layout. Each copy makes a record (and its strings and
 * arrays), so this is the convenient path; flyweights are the allocation-free one.
 */
final class RecordAccess {

    private final StructType<?> type;
    private final List<StructField> fields;
    private final VarHandle[] handles;
    private final MethodHandle[] getters;
    private final MethodHandle constructor;

    RecordAccess(StructType<?> type) {
        this.type = type;
        this.fields = type.fields();
        int n = fields.size();
        handles = new VarHandle[n];
        getters = new MethodHandle[n];
        Class<?>[] params = new Class<?>[n];
        for (int i = 0; i < n; i++) {
            StructField f = fields.get(i);
            handles[i] = f.kind() == StructField.Kind.VALUE ? type.varHandle(i) : null;
            getters[i] = f.getter().asType(MethodType.methodType(Object.class, Object.class));
            params[i] = f.getter().type().returnType();
        }
        try {
            constructor = MethodHandles.publicLookup()
                    .unreflectConstructor(type.javaType().getDeclaredConstructor(params))
                    .asSpreader(Object[].class, n)
                    .asType(MethodType.methodType(Object.class, Object[].class));
        } catch (ReflectiveOperationException e) {
            throw new IllegalArgumentException("struct " + type.javaType().getName()
                    + ": the canonical constructor is not public", e);
        }
    }

    Object read(MemorySegment s, long base) {
        Object[] args = new Object[fields.size()];
        for (int i = 0; i < args.length; i++) {
            StructField f = fields.get(i);
            long at = base + type.offset(i);
            args[i] = switch (f.kind()) {
                case VALUE -> handles[i].get(s, at);
                case ARRAY -> {
                    Object array = Array.newInstance(f.type(), f.length());
                    MemorySegment.copy(s, StructType.valueLayout(f.type()), at, array, 0, f.length());
                    yield array;
                }
                case STRING -> StructStrings.get(s, at, f.length());
                case STRUCT -> f.nested().read(s, at);
            };
        }
        try {
            return constructor.invokeExact(args);
        } catch (RuntimeException | Error e) {
            throw e;
        } catch (Throwable e) {
            throw new IllegalStateException("constructor of " + type.javaType().getName() + " failed", e);
        }
    }

    /**
     * Writes a record: every field is read and checked first (a string's UTF-8 made), and only then
     * is anything stored, so a refused value (a string too long, a null) leaves the whole struct as
     * it was, not the fields before it changed.
     */
    void write(Object value, MemorySegment s, long base) {
        put(values(value), s, base);
    }

    /** The fields' values, checked, with strings as their UTF-8 and nested records as their own values. */
    private Object[] values(Object value) {
        Object[] values = new Object[getters.length];
        for (int i = 0; i < values.length; i++) {
            StructField f = fields.get(i);
            Object v;
            try {
                v = getters[i].invokeExact(value);
            } catch (RuntimeException | Error e) {
                throw e;
            } catch (Throwable e) {
                throw new IllegalStateException("accessor " + f.name() + " failed", e);
            }
            String field = type.javaType().getSimpleName() + "." + f.name();
            values[i] = switch (f.kind()) {
                case VALUE -> v;
                case ARRAY -> {
                    if (v == null || Array.getLength(v) != f.length()) {
                        throw new IllegalArgumentException("field=" + field + " needs exactly " + f.length()
                                + " elements (its @Length) but got " + (v == null ? "null" : Array.getLength(v)));
                    }
                    yield v;
                }
                case STRING -> {
                    if (v == null) {
                        throw new IllegalArgumentException("field=" + field + " is null; a struct string "
                                + "cannot be null (use \"\")");
                    }
                    yield StructStrings.utf8(f.length(), (String) v, field);
                }
                case STRUCT -> {
                    if (v == null) {
                        throw new IllegalArgumentException("field=" + field + " is null; nested structs always exist");
                    }
                    yield f.nested().records().values(v);
                }
            };
        }
        return values;
    }

    private void put(Object[] values, MemorySegment s, long base) {
        for (int i = 0; i < values.length; i++) {
            StructField f = fields.get(i);
            long at = base + type.offset(i);
            switch (f.kind()) {
                case VALUE -> handles[i].set(s, at, values[i]);
                case ARRAY -> MemorySegment.copy(values[i], 0, s, StructType.valueLayout(f.type()), at, f.length());
                case STRING -> StructStrings.put(s, at, f.length(), (byte[]) values[i]);
                case STRUCT -> f.nested().records().put((Object[]) values[i], s, at);
            }
        }
    }
}
