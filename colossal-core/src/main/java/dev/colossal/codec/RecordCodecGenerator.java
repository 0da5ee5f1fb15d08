package dev.colossal.codec;

import static java.lang.constant.ConstantDescs.CD_Object;
import static java.lang.constant.ConstantDescs.CD_List;
import static java.lang.constant.ConstantDescs.CD_String;
import static java.lang.constant.ConstantDescs.CD_boolean;
import static java.lang.constant.ConstantDescs.CD_byte;
import static java.lang.constant.ConstantDescs.CD_int;
import static java.lang.constant.ConstantDescs.CD_long;
import static java.lang.constant.ConstantDescs.CD_void;

import java.lang.classfile.ClassFile;
import java.lang.classfile.CodeBuilder;
import java.lang.classfile.Label;
import java.lang.classfile.TypeKind;
import java.lang.constant.ClassDesc;
import java.lang.constant.ConstantDescs;
import java.lang.constant.DynamicConstantDesc;
import java.lang.constant.MethodTypeDesc;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.lang.reflect.Constructor;
import java.lang.reflect.Member;
import java.lang.reflect.Method;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Writes the bytecode of one codec per record or class and defines it as a hidden class in this
 * package. The generated methods touch each field once, in order, with no loop and no reflection:
 * getters and the constructor are method handles loaded as constants from the class data (so the JIT
 * inlines them as if they were direct calls, and the hidden class never names the user's type, which
 * may live in a module we cannot read), nested codecs are constants too, and primitives go straight
 * to {@link WireFormat} and {@link Input}.
 */
final class RecordCodecGenerator {

    /**
     * One field: its erased getter {@code (Object)P}, for references its codec, and the public
     * accessor method or field the bytecode may call directly, or null to go through the getter.
     */
    record Field(String name, Class<?> type, MethodHandle getter, WireCodec<?> codec, Member direct) {}

    private static final ClassDesc CD_GENERATED = ClassDesc.of(GeneratedCodec.class.getName());
    private static final ClassDesc CD_ABSTRACT = ClassDesc.of(WireCodec.class.getName());
    private static final ClassDesc CD_INPUT = ClassDesc.of(Input.class.getName());
    private static final ClassDesc CD_OUTPUT = ClassDesc.of(Output.class.getName());
    private static final ClassDesc CD_ARRAY_LIST = ClassDesc.of(ArrayList.class.getName());
    private static final ClassDesc CD_RANDOM_ACCESS = ClassDesc.of(java.util.RandomAccess.class.getName());
    private static final ClassDesc CD_HANDLE = ConstantDescs.CD_MethodHandle;
    private static final MethodTypeDesc INIT = MethodTypeDesc.of(CD_void, CD_String, CD_String);
    private static final int PUBLIC_FINAL = ClassFile.ACC_PUBLIC | ClassFile.ACC_FINAL;
    private static final int MAX_FIELDS = 200; // a constructor takes at most 255 slots
    private static final AtomicInteger SEQUENCE = new AtomicInteger();

    private RecordCodecGenerator() {}

    /**
     * @param constructor {@code (P1..Pn)Object} with references erased to Object
     */
    static GeneratedCodec generate(Class<?> type, String schema, List<Field> fields, MethodHandle constructor,
                                   Constructor<?> direct) {
        if (fields.size() > MAX_FIELDS) {
            throw new IllegalArgumentException("type=" + type.getName() + " has " + fields.size()
                    + " fields; codecs support at most " + MAX_FIELDS + ": group fields into nested records");
        }
        int n = fields.size();
        List<Object> data = new ArrayList<>(3 * n + 1);
        fields.forEach(f -> data.add(f.getter()));
        fields.forEach(f -> data.add(f.codec()));
        data.add(constructor);
        fields.forEach(f -> data.add(isList(f) ? ((CollectionCodec<?, ?>) f.codec()).element() : f.codec()));
        ClassDesc self = ClassDesc.of(RecordCodecGenerator.class.getPackageName() + ".GeneratedCodec$"
                + type.getSimpleName() + "$" + SEQUENCE.incrementAndGet());
        byte[] bytes = ClassFile.of().build(self, cb -> {
            cb.withFlags(ClassFile.ACC_FINAL | ClassFile.ACC_SYNTHETIC);
            cb.withSuperclass(CD_GENERATED);
            cb.withMethodBody(ConstantDescs.INIT_NAME, INIT, 0, code -> code
                    .aload(0).aload(1).aload(2).invokespecial(CD_GENERATED, ConstantDescs.INIT_NAME, INIT).return_());
            cb.withMethodBody("size", MethodTypeDesc.of(CD_long, CD_Object), PUBLIC_FINAL,
                    code -> size(code, fields));
            cb.withMethodBody("write", MethodTypeDesc.of(CD_void, CD_Object, CD_OUTPUT),
                    PUBLIC_FINAL, code -> write(code, fields));
            cb.withMethodBody("read", MethodTypeDesc.of(CD_Object, CD_INPUT), PUBLIC_FINAL,
                    code -> read(code, type, fields, direct));
        });
        try {
            MethodHandles.Lookup hidden = MethodHandles.lookup()
                    .defineHiddenClassWithClassData(bytes, Collections.unmodifiableList(data), true);
            MethodHandle init = hidden.findConstructor(hidden.lookupClass(),
                    MethodType.methodType(void.class, String.class, String.class));
            return (GeneratedCodec) init.invoke(type.getName(), schema);
        } catch (RuntimeException | Error e) {
            throw e;
        } catch (Throwable e) {
            throw new IllegalStateException("could not define the codec class for type=" + type.getName(), e);
        }
    }

    private static void size(CodeBuilder code, List<Field> fields) {
        long fixed = 0;
        for (Field f : fields) {
            fixed += f.type().isPrimitive() ? WireFormat.primitiveSize(f.type()) : 0;
        }
        code.loadConstant(fixed).lstore(2);
        for (int i = 0; i < fields.size(); i++) {
            Field f = fields.get(i);
            if (!f.type().isPrimitive()) {
                code.lload(2);
                loadData(code, fields.size() + i, CD_ABSTRACT);
                getField(code, i, f, 1);
                code.invokestatic(CD_ABSTRACT, "sizeNullable", MethodTypeDesc.of(CD_long, CD_ABSTRACT, CD_Object), true);
                code.ladd().lstore(2);
            }
        }
        code.lload(2).lreturn();
    }

    private static void write(CodeBuilder code, List<Field> fields) {
        // locals: 0 this, 1 value, 2 output
        for (int i = 0; i < fields.size(); i++) {
            Field f = fields.get(i);
            if (f.type().isPrimitive()) {
                code.aload(2);
                getField(code, i, f, 1);
                code.invokevirtual(CD_OUTPUT, "write" + capitalized(f.type()), MethodTypeDesc.of(CD_void, primitive(f.type())));
            } else if (isList(f)) {
                writeList(code, fields.size(), i, f);
            } else {
                loadData(code, fields.size() + i, CD_ABSTRACT);
                getField(code, i, f, 1);
                code.aload(2);
                code.invokestatic(CD_ABSTRACT, "writeNullable", MethodTypeDesc.of(CD_void, CD_ABSTRACT, CD_Object, CD_OUTPUT), true);
            }
        }
        code.return_();
    }

    /**
     * Whether a field is a {@code List} that the generated code writes and reads with its own loop:
     * each loop's element calls are then sites of their own, on the element codec as a constant,
     * where a shared {@link CollectionCodec} makes them megamorphic across every list type.
     */
    private static boolean isList(Field f) {
        return f.codec() instanceof CollectionCodec<?, ?> c && c.kind().equals("List")
                && (f.type() == List.class || f.type() == ArrayList.class);
    }

    /**
     * A list field: the presence byte, then, for a {@code RandomAccess} list, the count and each element
     * by index; any other list goes through its {@link CollectionCodec}. Same bytes either way.
     */
    private static void writeList(CodeBuilder code, int n, int i, Field f) {
        int list = code.allocateLocal(TypeKind.REFERENCE);
        int size = code.allocateLocal(TypeKind.INT);
        int k = code.allocateLocal(TypeKind.INT);
        Label present = code.newLabel();
        Label indexed = code.newLabel();
        Label loop = code.newLabel();
        Label done = code.newLabel();
        getField(code, i, f, 1);
        code.astore(list).aload(list).ifnonnull(present);
        code.aload(2).iconst_0().invokevirtual(CD_OUTPUT, "writeByte", MethodTypeDesc.of(CD_void, CD_byte)).goto_(done);
        code.labelBinding(present);
        code.aload(2).iconst_1().invokevirtual(CD_OUTPUT, "writeByte", MethodTypeDesc.of(CD_void, CD_byte));
        code.aload(list).instanceOf(CD_RANDOM_ACCESS).ifne(indexed);
        loadData(code, n + i, CD_ABSTRACT);
        code.aload(list).aload(2).invokeinterface(CD_ABSTRACT, "write", MethodTypeDesc.of(CD_void, CD_Object, CD_OUTPUT));
        code.goto_(done);
        code.labelBinding(indexed);
        code.aload(list).checkcast(CD_List).invokeinterface(CD_List, "size", MethodTypeDesc.of(CD_int)).istore(size);
        code.aload(2).iload(size).invokevirtual(CD_OUTPUT, "writeVarint", MethodTypeDesc.of(CD_void, CD_int));
        code.iconst_0().istore(k);
        code.labelBinding(loop);
        code.iload(k).iload(size).if_icmpge(done);
        loadData(code, 2 * n + 1 + i, CD_ABSTRACT);
        code.aload(list).checkcast(CD_List).iload(k).invokeinterface(CD_List, "get", MethodTypeDesc.of(CD_Object, CD_int));
        code.aload(2).invokestatic(CD_ABSTRACT, "writeNullable", MethodTypeDesc.of(CD_void, CD_ABSTRACT, CD_Object, CD_OUTPUT), true);
        code.iinc(k, 1).goto_(loop);
        code.labelBinding(done);
    }

    /** A list field: the presence byte, the count, then each element into an {@code ArrayList}. */
    private static void readList(CodeBuilder code, int n, int i, Field f) {
        int size = code.allocateLocal(TypeKind.INT);
        int k = code.allocateLocal(TypeKind.INT);
        int list = code.allocateLocal(TypeKind.REFERENCE);
        Label loop = code.newLabel();
        Label done = code.newLabel();
        code.aconst_null().astore(list);
        code.aload(1);
        loadData(code, n + i, CD_ABSTRACT);
        code.invokevirtual(CD_INPUT, "readPresence", MethodTypeDesc.of(CD_boolean, CD_ABSTRACT)).ifeq(done);
        code.aload(1).ldc(f.codec().typeName()).iconst_1()
                .invokevirtual(CD_INPUT, "readCount", MethodTypeDesc.of(CD_int, CD_String, CD_int)).istore(size);
        code.new_(CD_ARRAY_LIST).dup().iload(size)
                .invokespecial(CD_ARRAY_LIST, ConstantDescs.INIT_NAME, MethodTypeDesc.of(CD_void, CD_int)).astore(list);
        code.iconst_0().istore(k);
        code.labelBinding(loop);
        code.iload(k).iload(size).if_icmpge(done);
        code.aload(list);
        loadData(code, 2 * n + 1 + i, CD_ABSTRACT);
        code.aload(1).invokestatic(CD_ABSTRACT, "readNullable", MethodTypeDesc.of(CD_Object, CD_ABSTRACT, CD_INPUT), true);
        code.invokevirtual(CD_ARRAY_LIST, "add", MethodTypeDesc.of(CD_boolean, CD_Object)).pop();
        code.iinc(k, 1).goto_(loop);
        code.labelBinding(done);
        code.aload(list);
    }

    private static void read(CodeBuilder code, Class<?> type, List<Field> fields, Constructor<?> direct) {
        // each field's value goes into a local, so that list loops branch on an empty operand stack;
        // then the constructor takes them all
        int n = fields.size();
        ClassDesc[] params = new ClassDesc[n];
        int[] slots = new int[n];
        for (int i = 0; i < n; i++) {
            Field f = fields.get(i);
            if (isList(f)) {
                readList(code, n, i, f);
                params[i] = direct != null ? desc(f.type()) : CD_Object;
                if (direct != null) {
                    code.checkcast(params[i]);
                }
                slots[i] = code.allocateLocal(TypeKind.REFERENCE);
                code.astore(slots[i]);
                continue;
            }
            if (f.type() == boolean.class) {
                code.aload(1).ldc(type.getSimpleName() + "." + f.name());
                code.invokevirtual(CD_INPUT, "readBoolean", MethodTypeDesc.of(ConstantDescs.CD_boolean, CD_String));
                params[i] = ConstantDescs.CD_boolean;
            } else if (f.type().isPrimitive()) {
                params[i] = primitive(f.type());
                code.aload(1).invokevirtual(CD_INPUT, "read" + capitalized(f.type()), MethodTypeDesc.of(params[i]));
            } else {
                loadData(code, n + i, CD_ABSTRACT);
                code.aload(1).invokestatic(CD_ABSTRACT, "readNullable", MethodTypeDesc.of(CD_Object, CD_ABSTRACT, CD_INPUT), true);
                params[i] = CD_Object;
                if (direct != null) {
                    params[i] = desc(f.type());
                    code.checkcast(params[i]);
                }
            }
            slots[i] = code.allocateLocal(TypeKind.from(params[i]));
            code.storeLocal(TypeKind.from(params[i]), slots[i]);
        }
        if (direct != null) {
            code.new_(desc(type)).dup();
        } else {
            loadData(code, 2 * n, CD_HANDLE);
        }
        for (int i = 0; i < n; i++) {
            code.loadLocal(TypeKind.from(params[i]), slots[i]);
        }
        if (direct != null) {
            code.invokespecial(desc(type), ConstantDescs.INIT_NAME, MethodTypeDesc.of(CD_void, params));
        } else {
            code.invokevirtual(CD_HANDLE, "invokeExact", MethodTypeDesc.of(CD_Object, params));
        }
        code.areturn();
    }

    private static void getField(CodeBuilder code, int index, Field f, int valueSlot) {
        if (f.direct() instanceof Method m) {
            ClassDesc owner = desc(m.getDeclaringClass());
            code.aload(valueSlot).checkcast(owner).invokevirtual(owner, m.getName(), MethodTypeDesc.of(desc(f.type())));
            return;
        }
        if (f.direct() instanceof java.lang.reflect.Field field) {
            ClassDesc owner = desc(field.getDeclaringClass());
            code.aload(valueSlot).checkcast(owner).getfield(owner, field.getName(), desc(f.type()));
            return;
        }
        loadData(code, index, CD_HANDLE);
        code.aload(valueSlot);
        ClassDesc result = f.type().isPrimitive() ? primitive(f.type()) : CD_Object;
        code.invokevirtual(CD_HANDLE, "invokeExact", MethodTypeDesc.of(result, CD_Object));
    }

    private static void loadData(CodeBuilder code, int index, ClassDesc type) {
        code.ldc(DynamicConstantDesc.ofNamed(ConstantDescs.BSM_CLASS_DATA_AT, ConstantDescs.DEFAULT_NAME, type, index));
    }

    private static ClassDesc primitive(Class<?> type) {
        return desc(type);
    }

    private static ClassDesc desc(Class<?> type) {
        return type.describeConstable().orElseThrow();
    }

    private static String capitalized(Class<?> primitive) {
        String name = primitive.getName();
        return Character.toUpperCase(name.charAt(0)) + name.substring(1);
    }
}
