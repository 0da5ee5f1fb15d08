package dev.colossal.codec;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * Marks the constructor a generated codec decodes a class through, and says which field each of its
 * parameters sets. Without it a class needs a constructor taking every field in declaration order,
 * or a no-argument constructor and non-final fields.
 *
 * <pre>{@code
 * public final class Money {
 *     private final long cents;
 *     private final String currency;
 *
 *     @CodecConstructor({"currency", "cents"})
 *     public Money(String currency, long cents) { ... }
 * }
 * }</pre>
 */
@Documented
@Retention(RetentionPolicy.RUNTIME)
@Target(ElementType.CONSTRUCTOR)
public @interface CodecConstructor {

    /**
     * Returns the field each parameter sets, in parameter order; every encoded field exactly once.
     *
     * @return field names
     */
    String[] value();
}
