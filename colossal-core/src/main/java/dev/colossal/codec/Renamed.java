package dev.colossal.codec;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * Gives the names a field of a record or class had before, so that its
 * {@linkplain Codecs#evolving evolving codec} reads values written under those names into it.
 * Evolving codecs match fields by name: without this, a renamed field reads as its default and the
 * old name's value is skipped. Only the fields of the type given to {@code Codecs.evolving} are
 * matched by name, so only theirs count: records nested in them, and codecs that match fields by
 * position ({@link Codecs#of}), ignore it.
 *
 * <pre>{@code
 * record User(String name, @Renamed(from = "age") int years) {}
 * }</pre>
 */
@Documented
@Retention(RetentionPolicy.RUNTIME)
@Target({ElementType.RECORD_COMPONENT, ElementType.FIELD})
public @interface Renamed {

    /**
     * Returns the field's earlier names; each must differ from every other field's name.
     *
     * @return the field's earlier names
     */
    String[] from();
}
