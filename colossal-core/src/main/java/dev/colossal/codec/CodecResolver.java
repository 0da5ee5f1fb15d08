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
import java.math.BigDecimal;
import java.math.BigInteger;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.LocalTime;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.Deque;
import java.util.EnumMap;
import java.util.EnumSet;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.LinkedList;
import java.util.List;
import java.util.Map;
import java.util.NavigableMap;
import java.util.NavigableSet;
import java.util.Optional;
import java.util.Queue;
import java.util.Set;
import java.util.SortedMap;
import java.util.SortedSet;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import java.util.function.IntFunction;

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
            Map.entry(Instant.class, ScalarCodecs.INSTANT), Map.entry(Duration.class, ScalarCodecs.DURATION),
            Map.entry(LocalDate.class, ScalarCodecs.LOCAL_DATE), Map.entry(LocalTime.class, ScalarCodecs.LOCAL_TIME),
            Map.entry(LocalDateTime.class, ScalarCodecs.LOCAL_DATE_TIME),
            Map.entry(BigInteger.class, BigNumberCodecs.BIG_INTEGER), Map.entry(BigDecimal.class, BigNumberCodecs.BIG_DECIMAL),
            Map.entry(byte[].class, ArrayCodecs.BYTES),
            Map.entry(short[].class, ArrayCodecs.SHORTS), Map.entry(char[].class, ArrayCodecs.CHARS),
            Map.entry(int[].class, ArrayCodecs.INTS), Map.entry(long[].class, ArrayCodecs.LONGS),
            Map.entry(float[].class, ArrayCodecs.FLOATS), Map.entry(double[].class, ArrayCodecs.DOUBLES),
            Map.entry(boolean[].class, ArrayCodecs.BOOLEANS));

    /** What a type with no codec is told is supported. */
    private static final String SUPPORTED = "supported: primitives and their boxes, String, UUID, Instant, "
            + "Duration, LocalDate, LocalTime, LocalDateTime, BigInteger, BigDecimal, enums, arrays, collections, "
            + "maps, Optional, records and classes; give a codec of your own for any other type with "
            + "Codecs.of(type, lookup, Map.of(ThatType.class, itsCodec))";

    /** What an unsupported collection type is told to declare instead. */
    private static final String COLLECTIONS = "declare it as List<E>, Set<E> or Map<K, V> (read back as "
            + "ArrayList, LinkedHashSet and LinkedHashMap), or as one of Collection, ArrayList, LinkedList, "
            + "ArrayDeque, Queue, Deque, HashSet, LinkedHashSet, SortedSet, NavigableSet, TreeSet, EnumSet, "
            + "HashMap, LinkedHashMap, SortedMap, NavigableMap, TreeMap, EnumMap, ConcurrentMap, ConcurrentHashMap "
            + "(a sorted collection reads back in natural order: a comparator is not kept)";

    private final MethodHandles.Lookup lookup;
    /** Whether generated code may name public user types directly instead of calling method handles. */
    private final boolean linkDirectly;
    /** Codecs given for types wherever they appear, before any built-in. */
    private final Map<Class<?>, WireCodec<?>> custom;
    /** Records and classes already built, or being built (mapped to null until done). */
    private final Map<Class<?>, WireCodec<?>> composites = new HashMap<>();
    private final Map<Class<?>, LateCodec<?>> late = new HashMap<>();
    /** Whether enums are written by name ({@link EnumNameCodec}) rather than by ordinal. */
    private final boolean enumsByName;
    /** The enums met so far, in the order met. */
    private final Set<Class<?>> enums = new LinkedHashSet<>();

    CodecResolver(MethodHandles.Lookup lookup, boolean linkDirectly) {
        this(lookup, linkDirectly, Map.of(), false);
    }

    CodecResolver(MethodHandles.Lookup lookup, boolean linkDirectly, Map<Class<?>, WireCodec<?>> custom) {
        this(lookup, linkDirectly, custom, false);
    }

    CodecResolver(MethodHandles.Lookup lookup, boolean linkDirectly, Map<Class<?>, WireCodec<?>> custom,
                  boolean enumsByName) {
        this.lookup = lookup;
        this.linkDirectly = linkDirectly;
        this.custom = custom;
        this.enumsByName = enumsByName;
    }

    Set<Class<?>> enums() {
        return enums;
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
            if (Collection.class.isAssignableFrom(raw)) {
                return collection(p, raw, resolve(args[0], path + "[]"), path);
            }
            if (Map.class.isAssignableFrom(raw)) {
                return map(p, raw, resolve(args[0], path + "{key}"), resolve(args[1], path + "{value}"), path);
            }
            if (raw.getName().startsWith("java.")) {
                throw unsupported(path, type, "this JDK type has no built-in codec; " + SUPPORTED);
            }
            throw unsupported(path, type, "a generic record or class cannot be encoded: its type parameters are "
                    + "erased at run time, so the codec cannot know what a " + raw.getSimpleName() + " holds; declare "
                    + "a record with concrete types instead (record " + raw.getSimpleName() + "OfString(String "
                    + "value) rather than " + raw.getSimpleName() + "<String>)");
        }
        if (type instanceof GenericArrayType g) {
            throw unsupported(path, type, "arrays of generic types cannot be created safely; use a List");
        }
        throw unsupported(path, type, "type variables and wildcards have no concrete type to encode; "
                + "declare the field with a concrete type");
    }

    private WireCodec<?> resolveClass(Class<?> c, String path) {
        WireCodec<?> given = custom.get(c);
        if (given != null) {
            return given;
        }
        WireCodec<?> builtIn = BUILT_INS.get(c);
        if (builtIn != null) {
            return builtIn;
        }
        if (c.isEnum() || (c.getSuperclass() != null && c.getSuperclass().isEnum())) {
            Class<?> e = c.isEnum() ? c : c.getSuperclass();
            enums.add(e);
            return enumCodec(e, enumsByName);
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
            throw unsupported(path, c, "this JDK type has no built-in codec; " + SUPPORTED);
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
                throw inaccessible(c, rc.getAccessor(), fieldPath, e);
            }
            Method accessor = rc.getAccessor();
            boolean direct = Modifier.isPublic(accessor.getModifiers()) && linkable(c) && linkable(rc.getType());
            fields.add(field(rc.getName(), rc.getType(), rc.getGenericType(), getter, direct ? accessor : null, fieldPath));
        }
        Constructor<?> canonical = null;
        MethodHandle constructor;
        try {
            canonical = c.getDeclaredConstructor(types);
            constructor = lookup.unreflectConstructor(canonical);
        } catch (IllegalAccessException | NoSuchMethodException e) {
            throw inaccessible(c, canonical, path, e);
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
                    throw inaccessible(c, f, fieldPath, e);
                }
                try {
                    getter = lookup.unreflect((Method) member);
                } catch (IllegalAccessException again) {
                    throw inaccessible(c, member, fieldPath, again);
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
            throw inaccessible(c, matching, path, e);
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
            throw inaccessible(c, k, path, e);
        }
    }

    /** {@code (F1..Fn)C}: new C(), then each field set, as one method handle tree. */
    private MethodHandle constructWithSetters(Class<?> c, String path, List<Field> own) {
        MethodHandle create;
        Constructor<?> noArguments = null;
        try {
            noArguments = c.getDeclaredConstructor();
            create = lookup.unreflectConstructor(noArguments);
        } catch (NoSuchMethodException e) {
            throw unsupported(path, c, "a class needs a constructor taking its fields in declaration order, "
                    + "or a no-argument constructor");
        } catch (IllegalAccessException e) {
            throw inaccessible(c, noArguments, path, e);
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
                throw inaccessible(c, f, path + "." + f.getName(), e);
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
    private static WireCodec<?> enumCodec(Class<?> c, boolean byName) {
        return byName ? new EnumNameCodec(c) : new EnumCodec(c);
    }

    @SuppressWarnings({"unchecked", "rawtypes"})
    private static WireCodec<?> objectArray(WireCodec<?> element, Class<?> component) {
        return ObjectArrayCodec.of((WireCodec) element, n -> (Object[]) Array.newInstance(component, n));
    }

    /**
     * The codec of a collection type: the same bytes as a {@code List} or a {@code Set} (so the
     * declared type can change between them), read back into the declared class, or into a class that
     * implements the declared interface.
     */
    @SuppressWarnings({"unchecked", "rawtypes"})
    private static WireCodec<?> collection(ParameterizedType type, Class<?> raw, WireCodec<?> element, String path) {
        IntFunction<? extends Collection<?>> factory;
        String kind = "List";
        if (raw == List.class || raw == Collection.class || raw == ArrayList.class) {
            factory = ArrayList::new;
        } else if (raw == LinkedList.class || raw == Queue.class || raw == Deque.class) {
            factory = n -> new LinkedList<>(); // a LinkedList takes nulls, which an ArrayDeque refuses
        } else if (raw == ArrayDeque.class) {
            factory = ArrayDeque::new;
        } else {
            kind = "Set";
            if (raw == Set.class || raw == LinkedHashSet.class) {
                factory = n -> new LinkedHashSet<>(capacity(n));
            } else if (raw == HashSet.class) {
                factory = n -> new HashSet<>(capacity(n));
            } else if (raw == SortedSet.class || raw == NavigableSet.class || raw == TreeSet.class) {
                requireComparable(type, type.getActualTypeArguments()[0], path);
                factory = n -> new TreeSet<>();
            } else if (raw == EnumSet.class) {
                Class enumType = (Class) type.getActualTypeArguments()[0];
                factory = n -> EnumSet.noneOf(enumType);
            } else {
                throw unsupported(path, type, "this collection type is not supported; " + COLLECTIONS);
            }
        }
        return CollectionCodec.of(kind, (WireCodec) element, (IntFunction) factory);
    }

    /** The codec of a map type, as {@link #collection} for collections. */
    @SuppressWarnings({"unchecked", "rawtypes"})
    private static WireCodec<?> map(ParameterizedType type, Class<?> raw, WireCodec<?> keys, WireCodec<?> values,
                                    String path) {
        IntFunction<? extends Map<?, ?>> factory;
        if (raw == Map.class || raw == LinkedHashMap.class) {
            factory = n -> new LinkedHashMap<>(capacity(n));
        } else if (raw == HashMap.class) {
            factory = n -> new HashMap<>(capacity(n));
        } else if (raw == SortedMap.class || raw == NavigableMap.class || raw == TreeMap.class) {
            requireComparable(type, type.getActualTypeArguments()[0], path);
            factory = n -> new TreeMap<>();
        } else if (raw == ConcurrentMap.class || raw == ConcurrentHashMap.class) {
            factory = n -> new ConcurrentHashMap<>(capacity(n));
        } else if (raw == EnumMap.class) {
            Class enumType = (Class) type.getActualTypeArguments()[0];
            factory = n -> new EnumMap<>(enumType);
        } else {
            throw unsupported(path, type, "this map type is not supported; " + COLLECTIONS);
        }
        return MapCodec.of((WireCodec) keys, (WireCodec) values, (IntFunction) factory);
    }

    /** A sorted collection is read back in natural order, which its elements or keys must have. */
    private static void requireComparable(ParameterizedType type, Type element, String path) {
        if (!(element instanceof Class<?> c && Comparable.class.isAssignableFrom(c))) {
            throw unsupported(path, type, "a sorted set or map is read back in natural order, and "
                    + element.getTypeName() + " is not Comparable; declare it as a Set<E> or Map<K, V> (insertion "
                    + "order) instead");
        }
    }

    private static IllegalArgumentException unsupported(String path, Type type, String why) {
        return new IllegalArgumentException("field=" + path + " type=" + type.getTypeName()
                + " cannot be encoded: " + why);
    }

    /**
     * Says why {@code c} (or {@code member}, the constructor, field or method that failed, if known)
     * cannot be reached and what to pass or declare instead. The JDK's own message is left to the
     * cause: it can hold an array's identity string where the member's type should be.
     */
    private IllegalArgumentException inaccessible(Class<?> c, Member member, String path, Exception e) {
        String pkg = c.getPackageName();
        Module module = c.getModule();
        boolean publicLookup = (lookup.lookupModes() & MethodHandles.Lookup.UNCONDITIONAL) != 0;
        String why;
        if (!Modifier.isPublic(c.getModifiers())) {
            why = "the class is not public";
        } else if (!module.isExported(pkg, CodecResolver.class.getModule())) {
            why = "package " + pkg + " is not exported by " + module;
        } else if (publicLookup && !module.isExported(pkg)) {
            why = "package " + pkg + " is exported only to some modules, and Codecs.of(Class) reads types through "
                    + "the public lookup, which sees only packages exported to everyone";
        } else if (member != null && !Modifier.isPublic(member.getModifiers())) {
            why = (member instanceof Constructor<?> ? "its constructor " : member instanceof Field ? "its field "
                    : "its method ") + (member instanceof Constructor<?> ? "" : member.getName() + " ") + "is not public";
        } else {
            why = "the lookup of " + lookup.lookupClass().getName() + " cannot access it";
        }
        String advice = publicLookup
                ? "pass a lookup that can see it, Codecs.of(" + c.getSimpleName() + ".class, MethodHandles.lookup()) "
                        + "in a class of its module, or make it public in a package exported to everyone ('exports "
                        + pkg + ";')"
                : "pass a lookup with access to it: MethodHandles.lookup() in a class of package " + pkg
                        + ", or MethodHandles.privateLookupIn(" + c.getSimpleName() + ".class, MethodHandles.lookup())"
                        + " from a module that package is open to";
        return new IllegalArgumentException("field=" + path + ": type=" + c.getName() + " is not accessible to "
                + "Colossal: " + why + "; " + advice, e);
    }
}
