package dev.colossal;

import java.lang.reflect.Method;

/**
 * The bytes this thread has allocated on the heap, as the JVM counts them
 * (com.sun.management.ThreadMXBean): for tests that prove a path allocates nothing.
 */
public final class AllocatedBytes {

    // Reflection, so that this compiles and runs whether surefire places the tests in module
    // dev.colossal.core (which does not, and must not, require java.management or jdk.management)
    // or on the class path: reflective calls need no readability, only exported packages.
    private static final Object THREADS;
    private static final Method ALLOCATED;

    static {
        try {
            THREADS = Class.forName("java.lang.management.ManagementFactory").getMethod("getThreadMXBean").invoke(null);
            ALLOCATED = Class.forName("com.sun.management.ThreadMXBean").getMethod("getCurrentThreadAllocatedBytes");
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    private AllocatedBytes() {}

    /** @return the bytes the calling thread has allocated so far */
    public static long ofThisThread() {
        try {
            return (long) ALLOCATED.invoke(THREADS);
        } catch (ReflectiveOperationException e) {
            throw new AssertionError(e);
        }
    }
}
