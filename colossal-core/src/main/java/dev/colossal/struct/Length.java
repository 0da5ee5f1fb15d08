package dev.colossal.struct;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * The fixed length of a struct field that would otherwise have none: the number of bytes of a
 * {@code String} (UTF-8, zero-padded) or the number of elements of a primitive array. A string
 * field ends at its first zero byte, so writing a value that holds U+0000, like one too long,
 * throws {@link IllegalArgumentException} and leaves the field as it was.
 *
 * <pre>{@code
 * record Instrument(long id, @Length(8) String symbol, @Length(4) int[] venues) {}
 * interface Quote { @Length(4) long bid(int level); void bid(int level, long value); }
 * }</pre>
 */
@Documented
@Retention(RetentionPolicy.RUNTIME)
@Target({ElementType.METHOD, ElementType.RECORD_COMPONENT})
public @interface Length {

    /**
     * Returns the number of bytes (strings) or elements (arrays).
     *
     * @return a positive length
     */
    int value();
}
