package dev.colossal.struct;

import static java.lang.constant.ConstantDescs.CD_String;
import static java.lang.constant.ConstantDescs.CD_int;
import static java.lang.constant.ConstantDescs.CD_long;
import static java.lang.constant.ConstantDescs.CD_void;

import java.lang.classfile.ClassBuilder;
import java.lang.classfile.ClassFile;
import java.lang.classfile.CodeBuilder;
import java.lang.classfile.TypeKind;
import java.lang.constant.ClassDesc;
import java.lang.constant.ConstantDescs;
import java.lang.constant.DynamicConstantDesc;
import java.lang.constant.MethodTypeDesc;
import java.lang.foreign.MemorySegment;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.lang.invoke.VarHandle;
import java.lang.reflect.Method;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Defines, as a hidden class in this package, the flyweight implementing a struct interface: each
 * getter and setter is one access through a {@code static final VarHandle} derived from the struct's
 * layout, at the flyweight's base offset; nested structs are child flyweights moved on access.
 */
final class FlyweightGenerator {

    private static final ClassDesc CD_FLYWEIGHT = ClassDesc.of(Flyweight.class.getName());
    private static final ClassDesc CD_FLYWEIGHTS = CD_FLYWEIGHT.arrayType();
    private static final ClassDesc CD_SEGMENT = ClassDesc.of(MemorySegment.class.getName());
    private static final ClassDesc CD_VARHANDLE = ConstantDescs.CD_VarHandle;
    private static final ClassDesc CD_STRINGS = ClassDesc.of(StructStrings.class.getName());
    private static final MethodTypeDesc INIT = MethodTypeDesc.of(CD_void, CD_FLYWEIGHTS);
    private static final AtomicInteger SEQUENCE = new AtomicInteger();

    private FlyweightGenerator() {}

    /** Returns {@code ()Object}: makes a new flyweight with fresh child flyweights. */
    static MethodHandle generate(StructType<?> type) {
        Class<?> iface = type.javaType();
        // our hidden class names the user's interface, so our module must read the interface's module
        FlyweightGenerator.class.getModule().addReads(iface.getModule());
        List<StructField> fields = type.fields();
        List<Object> data = new ArrayList<>();
        List<StructType<?>> children = new ArrayList<>();
        int[] dataIndex = new int[fields.size()];
        int[] childIndex = new int[fields.size()];
        for (int i = 0; i < fields.size(); i++) {
            StructField f = fields.get(i);
            if (f.kind() == StructField.Kind.VALUE || f.kind() == StructField.Kind.ARRAY) {
                dataIndex[i] = data.size();
                data.add(type.varHandle(i));
            } else if (f.kind() == StructField.Kind.STRUCT) {
                childIndex[i] = children.size();
                children.add(f.nested());
            }
        }
        ClassDesc self = ClassDesc.of(FlyweightGenerator.class.getPackageName() + ".Flyweight$"
                + iface.getSimpleName() + "$" + SEQUENCE.incrementAndGet());
        byte[] bytes = ClassFile.of().build(self, cb -> {
            cb.withFlags(ClassFile.ACC_FINAL | ClassFile.ACC_SYNTHETIC);
            cb.withSuperclass(CD_FLYWEIGHT);
            cb.withInterfaceSymbols(ClassDesc.of(iface.getName()));
            for (int h = 0; h < data.size(); h++) {
                cb.withField("VH" + h, CD_VARHANDLE, ClassFile.ACC_STATIC | ClassFile.ACC_FINAL | ClassFile.ACC_PRIVATE);
            }
            cb.withMethodBody(ConstantDescs.CLASS_INIT_NAME, ConstantDescs.MTD_void, ClassFile.ACC_STATIC, code -> {
                for (int h = 0; h < data.size(); h++) {
                    code.ldc(DynamicConstantDesc.ofNamed(ConstantDescs.BSM_CLASS_DATA_AT, ConstantDescs.DEFAULT_NAME,
                            CD_VARHANDLE, h));
                    code.putstatic(self, "VH" + h, CD_VARHANDLE);
                }
                code.return_();
            });
            cb.withMethodBody(ConstantDescs.INIT_NAME, INIT, ClassFile.ACC_PUBLIC, code -> code
                    .aload(0).aload(1).invokespecial(CD_FLYWEIGHT, ConstantDescs.INIT_NAME, INIT).return_());
            for (int i = 0; i < fields.size(); i++) {
                StructField f = fields.get(i);
                long offset = type.offset(i);
                String vh = "VH" + dataIndex[i];
                switch (f.kind()) {
                    case VALUE -> {
                        getter(cb, f.accessor(), code -> atField(code.getstatic(self, vh, CD_VARHANDLE), offset)
                                .invokevirtual(CD_VARHANDLE, "get", MethodTypeDesc.of(desc(f.type()), CD_SEGMENT, CD_long)));
                        setter(cb, f.setter(), code -> atField(code.getstatic(self, vh, CD_VARHANDLE), offset)
                                .loadLocal(TypeKind.from(f.type()), 1)
                                .invokevirtual(CD_VARHANDLE, "set", MethodTypeDesc.of(CD_void, CD_SEGMENT, CD_long, desc(f.type()))));
                    }
                    case ARRAY -> {
                        getter(cb, f.accessor(), code -> atField(code.getstatic(self, vh, CD_VARHANDLE), offset).iload(1).i2l()
                                .invokevirtual(CD_VARHANDLE, "get",
                                        MethodTypeDesc.of(desc(f.type()), CD_SEGMENT, CD_long, CD_long)));
                        setter(cb, f.setter(), code -> atField(code.getstatic(self, vh, CD_VARHANDLE), offset).iload(1).i2l()
                                .loadLocal(TypeKind.from(f.type()), 2)
                                .invokevirtual(CD_VARHANDLE, "set",
                                        MethodTypeDesc.of(CD_void, CD_SEGMENT, CD_long, CD_long, desc(f.type()))));
                    }
                    case STRING -> {
                        getter(cb, f.accessor(), code -> atField(code, offset).loadConstant(f.length())
                                .invokestatic(CD_STRINGS, "get", MethodTypeDesc.of(CD_String, CD_SEGMENT, CD_long, CD_int)));
                        String path = iface.getSimpleName() + "." + f.name();
                        setter(cb, f.setter(), code -> atField(code, offset).loadConstant(f.length()).aload(1)
                                .loadConstant(path).invokestatic(CD_STRINGS, "set",
                                        MethodTypeDesc.of(CD_void, CD_SEGMENT, CD_long, CD_int, CD_String, CD_String)));
                    }
                    case STRUCT -> {
                        int child = childIndex[i];
                        getter(cb, f.accessor(), code -> {
                            code.aload(0).getfield(CD_FLYWEIGHT, "children", CD_FLYWEIGHTS).loadConstant(child).aaload();
                            atField(code, offset).invokevirtual(CD_FLYWEIGHT, "moveTo",
                                    MethodTypeDesc.of(CD_FLYWEIGHT, CD_SEGMENT, CD_long));
                            code.checkcast(ClassDesc.of(f.type().getName()));
                        });
                    }
                }
            }
        });
        try {
            MethodHandles.Lookup hidden = MethodHandles.lookup().defineHiddenClassWithClassData(bytes, data, true);
            MethodHandle init = hidden.findConstructor(hidden.lookupClass(),
                    MethodType.methodType(void.class, Flyweight[].class));
            MethodHandle[] childFactories = children.stream().map(c -> c.flyweightFactory()).toArray(MethodHandle[]::new);
            MethodHandle makeChildren = MethodHandles.insertArguments(
                    MethodHandles.lookup().findStatic(FlyweightGenerator.class, "children",
                            MethodType.methodType(Flyweight[].class, MethodHandle[].class)), 0, (Object) childFactories);
            return MethodHandles.collectArguments(init, 0, makeChildren).asType(MethodType.methodType(Object.class));
        } catch (ReflectiveOperationException e) {
            throw new IllegalStateException("could not define the flyweight of " + iface.getName(), e);
        }
    }

    private static Flyweight[] children(MethodHandle[] factories) throws Throwable {
        Flyweight[] children = new Flyweight[factories.length];
        for (int i = 0; i < factories.length; i++) {
            children[i] = (Flyweight) factories[i].invoke();
        }
        return children;
    }

    /** Pushes {@code segment, offset + fieldOffset}. */
    private static CodeBuilder atField(CodeBuilder code, long fieldOffset) {
        return code.aload(0).getfield(CD_FLYWEIGHT, "segment", CD_SEGMENT).aload(0)
                .getfield(CD_FLYWEIGHT, "offset", CD_long).loadConstant(fieldOffset).ladd();
    }

    private static void getter(ClassBuilder cb, Method m, java.util.function.Consumer<CodeBuilder> body) {
        cb.withMethodBody(m.getName(), methodDesc(m), ClassFile.ACC_PUBLIC | ClassFile.ACC_FINAL, code -> {
            body.accept(code);
            code.return_(TypeKind.from(m.getReturnType()));
        });
    }

    private static void setter(ClassBuilder cb, Method m, java.util.function.Consumer<CodeBuilder> body) {
        if (m != null) {
            cb.withMethodBody(m.getName(), methodDesc(m), ClassFile.ACC_PUBLIC | ClassFile.ACC_FINAL, code -> {
                body.accept(code);
                code.return_();
            });
        }
    }

    private static MethodTypeDesc methodDesc(Method m) {
        return MethodTypeDesc.of(desc(m.getReturnType()),
                java.util.Arrays.stream(m.getParameterTypes()).map(FlyweightGenerator::desc).toArray(ClassDesc[]::new));
    }

    private static ClassDesc desc(Class<?> c) {
        return c.describeConstable().orElseThrow();
    }
}
