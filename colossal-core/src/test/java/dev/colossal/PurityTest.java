package dev.colossal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.lang.classfile.ClassFile;
import java.lang.classfile.ClassModel;
import java.lang.classfile.MethodModel;
import java.lang.classfile.constantpool.ClassEntry;
import java.lang.classfile.constantpool.MemberRefEntry;
import java.lang.classfile.constantpool.PoolEntry;
import java.lang.reflect.AccessFlag;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * The core stays pure FFM: its bytecode references no Unsafe, no JDK internals, no restricted FFM
 * method, no native code. Read from the compiled classes, so nothing slips through in a string.
 */
class PurityTest {

    private static final List<String> FORBIDDEN_CLASS_PREFIXES = List.of(
            "sun/misc/", "jdk/internal/", "sun/nio/", "java/lang/foreign/Linker", "java/lang/foreign/SymbolLookup");
    private static final List<String> FORBIDDEN_MEMBERS = List.of(
            "java/lang/foreign/MemorySegment.reinterpret", "java/lang/foreign/AddressLayout.withTargetLayout",
            "java/lang/System.loadLibrary", "java/lang/System.load", "java/lang/Runtime.loadLibrary",
            "java/lang/Runtime.load", "java/lang/ModuleLayer$Controller.enableNativeAccess");

    @Test
    void coreBytecodeUsesNoUnsafeInternalsRestrictedMethodsOrNativeCode() throws IOException {
        Path classes = Path.of("target", "classes");
        assertTrue(Files.isDirectory(classes), "compiled classes expected at " + classes.toAbsolutePath());
        List<String> violations = new ArrayList<>();
        int scanned = 0;
        try (Stream<Path> files = Files.walk(classes)) {
            for (Path file : files.filter(p -> p.toString().endsWith(".class")).toList()) {
                scanned++;
                ClassModel model = ClassFile.of().parse(file);
                for (PoolEntry entry : model.constantPool()) {
                    if (entry instanceof ClassEntry c) {
                        String name = c.asInternalName();
                        for (String prefix : FORBIDDEN_CLASS_PREFIXES) {
                            if (name.startsWith(prefix) || name.startsWith("[L" + prefix)) {
                                violations.add(file + " references " + name);
                            }
                        }
                    } else if (entry instanceof MemberRefEntry m) {
                        String member = m.owner().asInternalName() + "." + m.name().stringValue();
                        if (FORBIDDEN_MEMBERS.contains(member)) {
                            violations.add(file + " calls " + member);
                        }
                    }
                }
                for (MethodModel method : model.methods()) {
                    if (method.flags().has(AccessFlag.NATIVE)) {
                        violations.add(file + " declares native method " + method.methodName());
                    }
                }
            }
        }
        assertTrue(scanned > 10, "scanned only " + scanned + " classes");
        assertEquals(List.of(), violations);
    }
}
