package dev.colossal.struct;

import java.lang.foreign.MemoryLayout;
import java.lang.invoke.MethodHandle;
import java.lang.reflect.Method;

/**
 * One field of a struct, as found on a record component or an interface's accessors.
 *
 * @param name     the field's name, also its name in the layout
 * @param kind     what it holds
 * @param type     the primitive (of a value or array element), {@code String}, or the nested type
 * @param length   bytes of a string or elements of an array, else 0
 * @param nested   the nested struct, for {@link Kind#STRUCT}
 * @param layout   the field's layout (named), before any padding
 * @param getter   the record accessor (records only), else null
 * @param accessor the interface getter (interfaces only), else null
 * @param setter   the interface setter, or null if there is none
 */
record StructField(String name, Kind kind, Class<?> type, int length, StructType<?> nested, MemoryLayout layout,
                   MethodHandle getter, Method accessor, Method setter) {

    enum Kind { VALUE, ARRAY, STRING, STRUCT }
}
