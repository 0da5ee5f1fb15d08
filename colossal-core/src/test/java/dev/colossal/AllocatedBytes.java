package dev.colossal;

import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;

/**
 * The bytes this thread has allocated on the heap, as the JVM counts them
 * (com.sun.management.ThreadMXBean): for tests that prove a path allocates nothing.
 */
public final class AllocatedBytes {

    // Reflection, so that this compiles and runs whether surefire places the tests in module
    // dev.colossal.core (which does not, and must not, require java.management or jdk.management)
    // or on the class path: reflective calls need no readability, only exported packages.
    // A method handle invoked exactly returns the primitive: Method.invoke would box the result,
    // and whether the JIT removes that box decides whether 16 bytes show up in a measurement.
    private static final MethodHandle ALLOCATED;
    private static final MethodHandle ALLOCATED_BY_ALL;

    static {
        try {
            Object threads = Class.forName("java.lang.management.ManagementFactory").getMethod("getThreadMXBean").invoke(null);
            Class<?> bean = Class.forName("com.sun.management.ThreadMXBean");
            ALLOCATED = MethodHandles.publicLookup()
                    .unreflect(bean.getMethod("getCurrentThreadAllocatedBytes"))
                    .bindTo(threads)
                    .asType(MethodType.methodType(long.class));
            ALLOCATED_BY_ALL = MethodHandles.publicLookup()
                    .unreflect(bean.getMethod("getTotalThreadAllocatedBytes"))
                    .bindTo(threads)
                    .asType(MethodType.methodType(long.class));
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    private AllocatedBytes() {}

    /** @return the bytes the calling thread has allocated so far */
    public static long ofThisThread() {
        try {
            return (long) ALLOCATED.invokeExact();
        } catch (Throwable e) {
            throw new AssertionError(e);
        }
    }

    /**
     * @return the bytes all threads, live and ended, have allocated so far: what virtual threads
     *     allocate is counted on their carriers (the JVM counts no virtual thread on its own)
     */
    public static long ofAllThreads() {
        try {
            return (long) ALLOCATED_BY_ALL.invokeExact();
        } catch (Throwable e) {
            throw new AssertionError(e);
        }
    }
}
