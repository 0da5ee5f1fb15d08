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
 * Defines, as a hidden class, the flyweight implementing a struct interface: each getter and setter
 * is one access through a {@code static final VarHandle} derived from the struct's layout, at the
 * flyweight's base offset; nested structs are child flyweights moved on access.
 *
 * <p>The class goes in this package when our class loader finds the interface, else in the
 * interface's own package (see {@link #definer}); so the bytecode names only public types and the
 * public or protected members of {@link Flyweight}.
 */
final class FlyweightGenerator {

    private static final ClassDesc CD_FLYWEIGHT = ClassDesc.of(Flyweight.class.getName());
    private static final ClassDesc CD_FLYWEIGHTS = CD_FLYWEIGHT.arrayType();
    private static final ClassDesc CD_SEGMENT = ClassDesc.of(MemorySegment.class.getName());
    private static final ClassDesc CD_VARHANDLE = ConstantDescs.CD_VarHandle;
    private static final MethodTypeDesc INIT = MethodTypeDesc.of(CD_void, CD_FLYWEIGHTS);
    private static final AtomicInteger SEQUENCE = new AtomicInteger();

    private FlyweightGenerator() {}

    /** Returns {@code ()Object}: makes a new flyweight with fresh child flyweights. */
    static MethodHandle generate(StructType<?> type) {
        Class<?> iface = type.javaType();
        MethodHandles.Lookup definer = definer(iface);
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
        String pkg = definer.lookupClass().getPackageName();
        ClassDesc self = ClassDesc.of((pkg.isEmpty() ? "" : pkg + ".") + "Flyweight$"
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
                        getter(cb, f.accessor(), code -> code.aload(0).loadConstant(offset).loadConstant(f.length())
                                .invokevirtual(CD_FLYWEIGHT, "string", MethodTypeDesc.of(CD_String, CD_long, CD_int)));
                        String path = iface.getSimpleName() + "." + f.name();
                        setter(cb, f.setter(), code -> code.aload(0).loadConstant(offset).loadConstant(f.length())
                                .aload(1).loadConstant(path).invokevirtual(CD_FLYWEIGHT, "string",
                                        MethodTypeDesc.of(CD_void, CD_long, CD_int, CD_String, CD_String)));
                    }
                    case STRUCT -> {
                        int child = childIndex[i];
                        getter(cb, f.accessor(), code -> code.aload(0).loadConstant(child).loadConstant(offset)
                                .invokevirtual(CD_FLYWEIGHT, "child", MethodTypeDesc.of(CD_FLYWEIGHT, CD_int, CD_long))
                                .checkcast(ClassDesc.of(f.type().getName())));
                    }
                }
            }
        });
        MethodHandles.Lookup hidden;
        try {
            hidden = definer.defineHiddenClassWithClassData(bytes, data, true);
        } catch (IllegalAccessError e) {
            // the check in definer should have caught it; the JVM's own words say less about the fix
            throw (IllegalArgumentException) notExported(iface).initCause(e);
        } catch (IllegalAccessException e) {
            throw new IllegalStateException("could not define the flyweight of " + iface.getName(), e);
        }
        try {
            MethodHandle init = hidden.findConstructor(hidden.lookupClass(),
                    MethodType.methodType(void.class, Flyweight[].class));
            MethodHandle[] childFactories = children.stream().map(c -> c.flyweightFactory()).toArray(MethodHandle[]::new);
            MethodHandle makeChildren = MethodHandles.insertArguments(
                    MethodHandles.lookup().findStatic(FlyweightGenerator.class, "children",
                            MethodType.methodType(Flyweight[].class, MethodHandle[].class)), 0, (Object) childFactories);
            MethodHandle typed = MethodHandles.insertArguments(MethodHandles.lookup().findStatic(FlyweightGenerator.class,
                    "typed", MethodType.methodType(Flyweight.class, Flyweight.class, StructType.class)), 1, type);
            MethodHandle make = MethodHandles.collectArguments(init, 0, makeChildren)
                    .asType(MethodType.methodType(Flyweight.class));
            return MethodHandles.filterReturnValue(make, typed).asType(MethodType.methodType(Object.class));
        } catch (ReflectiveOperationException e) {
            throw new IllegalStateException("could not define the flyweight of " + iface.getName(), e);
        }
    }

    /**
     * A lookup with full privilege in the package the flyweight of {@code iface} goes in: ours when our
     * class loader finds the interface, as in every layout where the interface's loader is ours or
     * one of its ancestors; otherwise, as for the source launcher's, a plugin's or an application
     * server's loader below ours, one in the interface's own package, through {@link #host}.
     */
    private static MethodHandles.Lookup definer(Class<?> iface) {
        Module colossal = FlyweightGenerator.class.getModule();
        // either the hidden class is in our module and names the interface, or privateLookupIn needs it
        colossal.addReads(iface.getModule());
        if (finds(FlyweightGenerator.class.getClassLoader(), iface)) {
            if (!iface.getModule().isExported(iface.getPackageName(), colossal)) {
                throw notExported(iface);
            }
            return MethodHandles.lookup();
        }
        if (!finds(iface.getClassLoader(), Flyweight.class)) {
            throw new IllegalArgumentException("struct interface " + iface.getName() + ": its class loader "
                    + iface.getClassLoader() + " and Colossal's " + FlyweightGenerator.class.getClassLoader()
                    + " do not see each other's classes, so no class can implement the interface and extend "
                    + Flyweight.class.getName() + "; load Colossal from the interface's loader or a parent of it");
        }
        MethodHandles.Lookup inPackage;
        try {
            inPackage = MethodHandles.privateLookupIn(iface, MethodHandles.lookup());
        } catch (IllegalAccessException e) {
            String to = colossal.isNamed() ? " to " + colossal.getName() : "";
            throw new IllegalArgumentException("struct interface " + iface.getName() + " is in a class loader "
                    + "that Colossal's class loader does not see, so its flyweight is defined in the interface's "
                    + "package, which " + iface.getModule() + " must open: add 'opens " + iface.getPackageName() + to
                    + ";' to its module-info", e);
        }
        try {
            return (MethodHandles.Lookup) inPackage.findStatic(host(inPackage, iface), "lookup",
                    MethodType.methodType(MethodHandles.Lookup.class)).invokeExact();
        } catch (RuntimeException | Error e) {
            throw e;
        } catch (Throwable e) {
            throw new IllegalStateException("could not get a lookup in the package of " + iface.getName(), e);
        }
    }

    /**
     * The class next to {@code iface} whose {@code static Lookup lookup()} returns its own,
     * full-privilege lookup. {@code privateLookupIn} from another module has no MODULE access, which defining a hidden
     * class needs, but may define a plain class; one per interface, found again when the interface's
     * struct type is built once more (as a nested field, or by two threads at once).
     */
    private static synchronized Class<?> host(MethodHandles.Lookup inPackage, Class<?> iface)
            throws IllegalAccessException {
        String name = iface.getName() + "$ColossalHost";
        ClassDesc lookup = ConstantDescs.CD_MethodHandles_Lookup;
        byte[] bytes = ClassFile.of().build(ClassDesc.of(name), cb -> cb
                .withFlags(ClassFile.ACC_FINAL | ClassFile.ACC_SUPER | ClassFile.ACC_SYNTHETIC)
                .withMethodBody("lookup", MethodTypeDesc.of(lookup), ClassFile.ACC_STATIC | ClassFile.ACC_SYNTHETIC,
                        code -> code.invokestatic(ConstantDescs.CD_MethodHandles, "lookup",
                                MethodTypeDesc.of(lookup)).areturn()));
        try {
            return inPackage.defineClass(bytes);
        } catch (LinkageError defined) {
            try {
                Class<?> found = Class.forName(name, false, iface.getClassLoader());
                if (found.getClassLoader() == iface.getClassLoader()) {
                    return found;
                }
            } catch (ClassNotFoundException e) {
                defined.addSuppressed(e);
            }
            throw defined;
        }
    }

    /** Whether {@code loader} resolves {@code type}'s name to {@code type} itself. */
    private static boolean finds(ClassLoader loader, Class<?> type) {
        try {
            return Class.forName(type.getName(), false, loader) == type;
        } catch (ClassNotFoundException | LinkageError e) {
            return false;
        }
    }

    /** Tells a new flyweight its type, for its {@code toString}. */
    private static Flyweight typed(Flyweight flyweight, StructType<?> type) {
        flyweight.type = type;
        return flyweight;
    }

    private static IllegalArgumentException notExported(Class<?> iface) {
        Module colossal = FlyweightGenerator.class.getModule();
        String pkg = iface.getPackageName();
        String to = colossal.isNamed() ? " to " + colossal.getName() : "";
        return new IllegalArgumentException("struct interface " + iface.getName() + " is in package " + pkg
                + ", which " + iface.getModule() + " does not export" + to + ", so no flyweight class can implement "
                + "it: add 'exports " + pkg + to + ";' (or 'exports " + pkg + ";') to its module-info");
    }

    private static Flyweight[] children(MethodHandle[] factories) throws Throwable {
        Flyweight[] children = new Flyweight[factories.length];
        for (int i = 0; i < factories.length; i++) {
            children[i] = (Flyweight) factories[i].invoke();
        }
        return children;
    }

    /** Pushes {@code baseSegment(), baseOffset() + fieldOffset}. */
    private static CodeBuilder atField(CodeBuilder code, long fieldOffset) {
        return code.aload(0).invokevirtual(CD_FLYWEIGHT, "baseSegment", MethodTypeDesc.of(CD_SEGMENT))
                .aload(0).invokevirtual(CD_FLYWEIGHT, "baseOffset", MethodTypeDesc.of(CD_long))
                .loadConstant(fieldOffset).ladd();
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
