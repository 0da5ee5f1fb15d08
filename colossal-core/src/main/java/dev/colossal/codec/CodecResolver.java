package dev.colossal.codec;

import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.lang.reflect.Array;
import java.lang.reflect.Constructor;
import java.lang.reflect.Field;
import java.lang.reflect.GenericArrayType;
import java.lang.reflect.Member;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.lang.reflect.ParameterizedType;
import java.lang.reflect.RecordComponent;
import java.lang.reflect.Type;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;

/**
 * Finds or builds the codec for a Java type, walking records and classes field by field. Every
 * unsupported type is reported here, at codec creation, with the path of the field that holds it.
 */
final class CodecResolver {

    private static final Map<Class<?>, WireCodec<?>> BUILT_INS = Map.ofEntries(
            Map.entry(Boolean.class, ScalarCodecs.BOOLEAN), Map.entry(Byte.class, ScalarCodecs.BYTE),
            Map.entry(Short.class, ScalarCodecs.SHORT), Map.entry(Character.class, ScalarCodecs.CHAR),
            Map.entry(Integer.class, ScalarCodecs.INT), Map.entry(Long.class, ScalarCodecs.LONG),
            Map.entry(Float.class, ScalarCodecs.FLOAT), Map.entry(Double.class, ScalarCodecs.DOUBLE),
            Map.entry(boolean.class, ScalarCodecs.BOOLEAN), Map.entry(byte.class, ScalarCodecs.BYTE),
            Map.entry(short.class, ScalarCodecs.SHORT), Map.entry(char.class, ScalarCodecs.CHAR),
            Map.entry(int.class, ScalarCodecs.INT), Map.entry(long.class, ScalarCodecs.LONG),
            Map.entry(float.class, ScalarCodecs.FLOAT), Map.entry(double.class, ScalarCodecs.DOUBLE),
            Map.entry(String.class, StringCodec.INSTANCE), Map.entry(UUID.class, ScalarCodecs.UUID_CODEC),
            Map.entry(Instant.class, ScalarCodecs.INSTANT), Map.entry(byte[].class, ArrayCodecs.BYTES),
            Map.entry(short[].class, ArrayCodecs.SHORTS), Map.entry(char[].class, ArrayCodecs.CHARS),
            Map.entry(int[].class, ArrayCodecs.INTS), Map.entry(long[].class, ArrayCodecs.LONGS),
            Map.entry(float[].class, ArrayCodecs.FLOATS), Map.entry(double[].class, ArrayCodecs.DOUBLES),
            Map.entry(boolean[].class, ArrayCodecs.BOOLEANS));

    private final MethodHandles.Lookup lookup;
    /** Whether generated code may name public user types directly instead of calling method handles. */
    private final boolean linkDirectly;
    /** Records and classes already built, or being built (mapped to null until done). */
    private final Map<Class<?>, WireCodec<?>> composites = new HashMap<>();
    private final Map<Class<?>, LateCodec<?>> late = new HashMap<>();

    CodecResolver(MethodHandles.Lookup lookup, boolean linkDirectly) {
        this.lookup = lookup;
        this.linkDirectly = linkDirectly;
    }

    static WireCodec<?> builtIn(Class<?> type) {
        return BUILT_INS.get(type);
    }

    WireCodec<?> resolve(Type type, String path) {
        if (type instanceof Class<?> c) {
            return resolveClass(c, path);
        }
        if (type instanceof ParameterizedType p && p.getRawType() instanceof Class<?> raw) {
            Type[] args = p.getActualTypeArguments();
            if (raw == Optional.class) {
                return OptionalCodec.of(resolve(args[0], path + "<>"));
            }
            if (raw == List.class || raw == Collection.class || raw == ArrayList.class) {
                return collection("List", resolve(args[0], path + "[]"), ArrayList::new);
            }
            if (raw == Set.class || raw == LinkedHashSet.class) {
                return collection("Set", resolve(args[0], path + "[]"), n -> new LinkedHashSet<>(capacity(n)));
            }
            if (raw == HashSet.class) {
                return collection("Set", resolve(args[0], path + "[]"), n -> new HashSet<>(capacity(n)));
            }
            if (raw == Map.class || raw == LinkedHashMap.class) {
                return map(resolve(args[0], path + "{key}"), resolve(args[1], path + "{value}"),
                        n -> new LinkedHashMap<>(capacity(n)));
            }
            if (raw == HashMap.class) {
                return map(resolve(args[0], path + "{key}"), resolve(args[1], path + "{value}"),
                        n -> new HashMap<>(capacity(n)));
            }
            throw unsupported(path, type, "only List, Set, Map and Optional may have type arguments");
        }
        if (type instanceof GenericArrayType g) {
            throw unsupported(path, type, "arrays of generic types cannot be created safely; use a List");
        }
        throw unsupported(path, type, "type variables and wildcards have no concrete type to encode; "
                + "declare the field with a concrete type");
    }

    private WireCodec<?> resolveClass(Class<?> c, String path) {
        WireCodec<?> builtIn = BUILT_INS.get(c);
        if (builtIn != null) {
            return builtIn;
        }
        if (c.isEnum() || (c.getSuperclass() != null && c.getSuperclass().isEnum())) {
            return enumCodec(c.isEnum() ? c : c.getSuperclass());
        }
        if (c.isArray()) {
            Class<?> component = c.getComponentType();
            return objectArray(resolveClass(component, path + "[]"), component);
        }
        if (Collection.class.isAssignableFrom(c) || Map.class.isAssignableFrom(c) || c == Optional.class) {
            throw unsupported(path, c, "declare its type arguments, e.g. List<String>");
        }
        if (c.isInterface() || Modifier.isAbstract(c.getModifiers()) || c == Object.class) {
            throw unsupported(path, c, "an interface or abstract type does not say which class to create; "
                    + "declare a record or final class");
        }
        if (c.isPrimitive() || c.getName().startsWith("java.")) {
            throw unsupported(path, c, "this JDK type has no built-in codec; supported: primitives and their "
                    + "boxes, String, UUID, Instant, enums, arrays, List, Set, Map, Optional, records and classes");
        }
        if (composites.containsKey(c)) {
            WireCodec<?> done = composites.get(c);
            return done != null ? done : late.computeIfAbsent(c, k -> new LateCodec<>(k.getName()));
        }
        composites.put(c, null);
        Composite model = composite(c, path);
        GeneratedCodec codec = RecordCodecGenerator.generate(c, model.schema(), model.fields(), model.constructor(),
                model.direct());
        composites.put(c, codec);
        bindLate(c, codec);
        return codec;
    }

    @SuppressWarnings("unchecked")
    private <T> void bindLate(Class<?> c, GeneratedCodec codec) {
        LateCodec<T> waiting = (LateCodec<T>) late.remove(c);
        if (waiting != null) {
            waiting.bind((WireCodec<T>) (WireCodec<?>) codec);
        }
    }

    /** A record's or class's fields in order, and the constructor taking them all (references erased). */
    record Composite(String schema, List<RecordCodecGenerator.Field> fields, MethodHandle constructor,
                     Constructor<?> direct) {}

    Composite composite(Class<?> c, String path) {
        return c.isRecord() ? record(c, path) : plainClass(c, path);
    }

    private Composite record(Class<?> c, String path) {
        RecordComponent[] components = c.getRecordComponents();
        List<RecordCodecGenerator.Field> fields = new ArrayList<>();
        Class<?>[] types = new Class<?>[components.length];
        for (int i = 0; i < components.length; i++) {
            RecordComponent rc = components[i];
            types[i] = rc.getType();
            String fieldPath = path + "." + rc.getName();
            MethodHandle getter;
            try {
                getter = lookup.unreflect(rc.getAccessor());
            } catch (IllegalAccessException e) {
                throw inaccessible(c, fieldPath, e);
            }
            Method accessor = rc.getAccessor();
            boolean direct = Modifier.isPublic(accessor.getModifiers()) && linkable(c) && linkable(rc.getType());
            fields.add(field(rc.getName(), rc.getType(), rc.getGenericType(), getter, direct ? accessor : null, fieldPath));
        }
        Constructor<?> canonical;
        MethodHandle constructor;
        try {
            canonical = c.getDeclaredConstructor(types);
            constructor = lookup.unreflectConstructor(canonical);
        } catch (IllegalAccessException | NoSuchMethodException e) {
            throw inaccessible(c, path, e);
        }
        return new Composite(schema("record", c, fields), fields, erase(constructor), directOrNull(canonical));
    }

    /**
     * A class's own instance fields, built through a constructor whose parameters match them in
     * order, or through a no-argument constructor and the (non-final) fields.
     */
    private Composite plainClass(Class<?> c, String path) {
        Class<?> parent = c.getSuperclass();
        if (parent != Object.class && Arrays.stream(parent.getDeclaredFields()).anyMatch(CodecResolver::persistent)) {
            throw unsupported(path, c, "fields inherited from superclass=" + parent.getName()
                    + " are not encoded; use a record or a class without inherited state");
        }
        if (c.getEnclosingClass() != null && !Modifier.isStatic(c.getModifiers())) {
            throw unsupported(path, c, "an inner class needs its enclosing instance; make it static");
        }
        List<Field> own = Arrays.stream(c.getDeclaredFields()).filter(CodecResolver::persistent).toList();
        List<RecordCodecGenerator.Field> fields = new ArrayList<>();
        Class<?>[] types = new Class<?>[own.size()];
        for (int i = 0; i < own.size(); i++) {
            Field f = own.get(i);
            types[i] = f.getType();
            String fieldPath = path + "." + f.getName();
            Member member = f;
            MethodHandle getter;
            try {
                getter = lookup.unreflectGetter(f);
            } catch (IllegalAccessException e) {
                // an encapsulated field: read it through its public accessor, name() or getName()
                member = accessor(c, f);
                if (member == null) {
                    throw inaccessible(c, fieldPath, e);
                }
                try {
                    getter = lookup.unreflect((Method) member);
                } catch (IllegalAccessException again) {
                    throw inaccessible(c, fieldPath, again);
                }
            }
            boolean direct = Modifier.isPublic(member.getModifiers()) && linkable(c) && linkable(f.getType());
            fields.add(field(f.getName(), f.getType(), f.getGenericType(), getter, direct ? member : null, fieldPath));
        }
        Constructor<?> annotated = Arrays.stream(c.getDeclaredConstructors())
                .filter(k -> k.isAnnotationPresent(CodecConstructor.class)).findFirst().orElse(null);
        if (annotated != null) {
            return new Composite(schema("class", c, fields), fields, erase(annotatedConstructor(c, path, own, annotated)),
                    null);
        }
        Constructor<?> matching = null;
        MethodHandle constructor;
        try {
            matching = c.getDeclaredConstructor(types);
            constructor = lookup.unreflectConstructor(matching);
        } catch (NoSuchMethodException e) {
            constructor = constructWithSetters(c, path, own);
        } catch (IllegalAccessException e) {
            throw inaccessible(c, path, e);
        }
        return new Composite(schema("class", c, fields), fields, erase(constructor), directOrNull(matching));
    }

    private static Method accessor(Class<?> c, Field f) {
        String capitalized = Character.toUpperCase(f.getName().charAt(0)) + f.getName().substring(1);
        for (String name : List.of(f.getName(), "get" + capitalized, "is" + capitalized)) {
            try {
                Method m = c.getMethod(name);
                if (m.getReturnType() == f.getType() && !Modifier.isStatic(m.getModifiers())) {
                    return m;
                }
            } catch (NoSuchMethodException e) {
                // try the next spelling
            }
        }
        return null;
    }

    /** {@code (F1..Fn)C} through a {@link CodecConstructor}, whose parameters name the fields they set. */
    private MethodHandle annotatedConstructor(Class<?> c, String path, List<Field> own, Constructor<?> k) {
        String[] names = k.getAnnotation(CodecConstructor.class).value();
        List<String> fieldNames = own.stream().map(Field::getName).toList();
        Class<?>[] params = k.getParameterTypes();
        if (names.length != params.length || names.length != own.size()
                || !fieldNames.containsAll(Arrays.asList(names)) || Arrays.stream(names).distinct().count() != names.length) {
            throw unsupported(path, c, "@CodecConstructor" + Arrays.toString(names) + " must name each of the fields "
                    + fieldNames + " exactly once, one per parameter of " + k);
        }
        int[] reorder = new int[names.length];
        for (int p = 0; p < names.length; p++) {
            reorder[p] = fieldNames.indexOf(names[p]);
            if (own.get(reorder[p]).getType() != params[p]) {
                throw unsupported(path + "." + names[p], c, "@CodecConstructor parameter " + p + " is "
                        + params[p].getName() + " but the field is " + own.get(reorder[p]).getType().getName());
            }
        }
        try {
            MethodHandle h = lookup.unreflectConstructor(k);
            Class<?>[] types = own.stream().map(Field::getType).toArray(Class<?>[]::new);
            return MethodHandles.permuteArguments(h, MethodType.methodType(c, types), reorder);
        } catch (IllegalAccessException e) {
            throw inaccessible(c, path, e);
        }
    }

    /** {@code (F1..Fn)C}: new C(), then each field set, as one method handle tree. */
    private MethodHandle constructWithSetters(Class<?> c, String path, List<Field> own) {
        MethodHandle create;
        try {
            create = lookup.unreflectConstructor(c.getDeclaredConstructor());
        } catch (NoSuchMethodException e) {
            throw unsupported(path, c, "a class needs a constructor taking its fields in declaration order, "
                    + "or a no-argument constructor");
        } catch (IllegalAccessException e) {
            throw inaccessible(c, path, e);
        }
        Class<?>[] types = own.stream().map(Field::getType).toArray(Class<?>[]::new);
        // (C, F1..Fn)C returning the instance; each setter is folded in front of it
        MethodHandle h = MethodHandles.dropArguments(MethodHandles.identity(c), 1, types);
        for (int i = own.size() - 1; i >= 0; i--) {
            Field f = own.get(i);
            if (Modifier.isFinal(f.getModifiers())) {
                throw unsupported(path + "." + f.getName(), c, "final field without a constructor taking every "
                        + "field in declaration order; add one, or make the field non-final");
            }
            MethodHandle setter;
            try {
                setter = lookup.unreflectSetter(f);
            } catch (IllegalAccessException e) {
                throw inaccessible(c, path + "." + f.getName(), e);
            }
            MethodHandle spread = MethodHandles.dropArguments(setter, 1, Arrays.copyOfRange(types, 0, i));
            spread = MethodHandles.dropArguments(spread, i + 2, Arrays.copyOfRange(types, i + 1, types.length));
            h = MethodHandles.foldArguments(h, spread);
        }
        return MethodHandles.foldArguments(h, create);
    }

    private RecordCodecGenerator.Field field(String name, Class<?> type, Type generic, MethodHandle getter,
                                             Member direct, String fieldPath) {
        WireCodec<?> codec = type.isPrimitive() ? null : resolve(generic, fieldPath);
        Class<?> erased = type.isPrimitive() ? type : Object.class;
        return new RecordCodecGenerator.Field(name, type, getter.asType(MethodType.methodType(erased, Object.class)),
                codec, direct);
    }

    private Constructor<?> directOrNull(Constructor<?> constructor) {
        if (constructor == null || !Modifier.isPublic(constructor.getModifiers())
                || !linkable(constructor.getDeclaringClass())) {
            return null;
        }
        for (Class<?> p : constructor.getParameterTypes()) {
            if (!linkable(p)) {
                return null;
            }
        }
        return constructor;
    }

    /**
     * Whether a hidden class in this module can name {@code type} in its bytecode: a public type in a
     * package its module exports to everyone, that this module's class loader finds by name. Our
     * module is then made to read the type's module. Otherwise fields go through method handles.
     */
    private boolean linkable(Class<?> type) {
        while (type.isArray()) {
            type = type.getComponentType();
        }
        if (type.isPrimitive()) {
            return true;
        }
        if (!linkDirectly || !Modifier.isPublic(type.getModifiers()) || type.isHidden()
                || !type.getModule().isExported(type.getPackageName())) {
            return false;
        }
        try {
            if (Class.forName(type.getName(), false, CodecResolver.class.getClassLoader()) != type) {
                return false;
            }
        } catch (ClassNotFoundException | LinkageError e) {
            return false;
        }
        CodecResolver.class.getModule().addReads(type.getModule());
        return true;
    }

    private static MethodHandle erase(MethodHandle constructor) {
        MethodType t = constructor.type();
        for (int i = 0; i < t.parameterCount(); i++) {
            if (!t.parameterType(i).isPrimitive()) {
                t = t.changeParameterType(i, Object.class);
            }
        }
        return constructor.asType(t.changeReturnType(Object.class));
    }

    private static String schema(String kind, Class<?> c, List<RecordCodecGenerator.Field> fields) {
        StringBuilder b = new StringBuilder(kind).append(' ').append(c.getName()).append('{');
        for (int i = 0; i < fields.size(); i++) {
            RecordCodecGenerator.Field f = fields.get(i);
            b.append(i == 0 ? "" : ",").append(f.name()).append(':');
            b.append(f.codec() == null ? f.type().getName() : f.codec().schema());
        }
        return b.append('}').toString();
    }

    private static boolean persistent(Field f) {
        return (f.getModifiers() & (Modifier.STATIC | Modifier.TRANSIENT)) == 0;
    }

    private static int capacity(int n) {
        return (int) Math.min(Integer.MAX_VALUE, n * 4L / 3 + 1);
    }

    @SuppressWarnings({"unchecked", "rawtypes"})
    private static WireCodec<?> enumCodec(Class<?> c) {
        return new EnumCodec(c);
    }

    @SuppressWarnings({"unchecked", "rawtypes"})
    private static WireCodec<?> objectArray(WireCodec<?> element, Class<?> component) {
        return ObjectArrayCodec.of((WireCodec) element, n -> (Object[]) Array.newInstance(component, n));
    }

    @SuppressWarnings({"unchecked", "rawtypes"})
    private static WireCodec<?> collection(String kind, WireCodec<?> element,
                                               java.util.function.IntFunction<? extends Collection<?>> factory) {
        return CollectionCodec.of(kind, (WireCodec) element, (java.util.function.IntFunction) factory);
    }

    @SuppressWarnings({"unchecked", "rawtypes"})
    private static WireCodec<?> map(WireCodec<?> keys, WireCodec<?> values,
                                        java.util.function.IntFunction<? extends Map<?, ?>> factory) {
        return MapCodec.of((WireCodec) keys, (WireCodec) values, (java.util.function.IntFunction) factory);
    }

    private static IllegalArgumentException unsupported(String path, Type type, String why) {
        return new IllegalArgumentException("field=" + path + " type=" + type.getTypeName()
                + " cannot be encoded: " + why);
    }

    private static IllegalArgumentException inaccessible(Class<?> c, String path, Exception e) {
        return new IllegalArgumentException("field=" + path + ": type=" + c.getName() + " is not accessible to "
                + "Colossal (" + e.getMessage() + "); make it public in an exported package, or pass your "
                + "lookup: Codecs.of(" + c.getSimpleName() + ".class, MethodHandles.lookup())", e);
    }
}
