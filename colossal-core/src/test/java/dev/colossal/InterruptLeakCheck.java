package dev.colossal;

import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.BeforeEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * Fails a test that leaves its thread interrupted, and clears the flag. JUnit runs the tests of a
 * class on one thread, so a leaked interrupt makes the next test's first wait throw
 * InterruptedException far from its cause (ReadOnlyToolsTest saw one at a {@code join}). Registered
 * for every core test by autodetection ({@code junit-platform.properties}).
 */
public final class InterruptLeakCheck implements BeforeEachCallback, AfterEachCallback {

    @Override
    public void beforeEach(ExtensionContext context) {
        if (Thread.interrupted()) {
            throw new AssertionError(context.getDisplayName() + " started on a thread already interrupted"
                    + " (by something outside a test: the flag is cleared now)");
        }
    }

    @Override
    public void afterEach(ExtensionContext context) {
        if (Thread.interrupted()) {
            throw new AssertionError(context.getRequiredTestMethod().getName()
                    + " left its thread interrupted: the next test's first wait would throw InterruptedException");
        }
    }
}
