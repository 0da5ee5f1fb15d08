package dev.colossal.map;

import dev.colossal.codec.Codec;
import java.lang.reflect.GenericArrayType;
import java.lang.reflect.ParameterizedType;
import java.lang.reflect.Type;
import java.lang.reflect.TypeVariable;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The class of the values a codec encodes, as its class declares it: {@code Point} for a codec
 * that {@code implements Codec<Point>} (or extends a class that does, binding the type further
 * down), {@code Object} when its class leaves the type open ({@code class MyCodec<T> implements
 * Codec<T>}, and the codecs {@code Codecs} generates for records and classes). Generic signatures
 * are read once, when a map opens; a map's lookups check a key against this class instead of
 * reading a {@link ClassCastException} from the codec as "not a key", which would hide a codec's
 * own bug.
 */
final class CodecType {

    private CodecType() {}

    static Class<?> of(Codec<?> codec) {
        return erasure(argument(codec.getClass(), Map.of()));
    }

    /** Codec's type argument as {@code type} binds it, given the bindings of {@code type}'s own variables; null if it does not extend Codec. */
    private static Type argument(Type type, Map<TypeVariable<?>, Type> outer) {
        Class<?> raw = (Class<?>) (type instanceof ParameterizedType p ? p.getRawType() : type);
        Map<TypeVariable<?>, Type> bindings = new HashMap<>();
        if (type instanceof ParameterizedType p) {
            TypeVariable<?>[] variables = raw.getTypeParameters();
            for (int i = 0; i < variables.length; i++) {
                Type actual = p.getActualTypeArguments()[i];
                bindings.put(variables[i], outer.getOrDefault(actual, actual));
            }
        }
        if (raw == Codec.class) {
            return bindings.getOrDefault(raw.getTypeParameters()[0], Object.class);
        }
        List<Type> parents = new ArrayList<>(List.of(raw.getGenericInterfaces()));
        if (raw.getGenericSuperclass() != null) {
            parents.add(raw.getGenericSuperclass());
        }
        for (Type parent : parents) {
            Type found = argument(parent, bindings);
            if (found != null) {
                return found;
            }
        }
        return null;
    }

    private static Class<?> erasure(Type type) {
        return switch (type) {
            case Class<?> c -> c;
            case ParameterizedType p -> (Class<?>) p.getRawType();
            case GenericArrayType a -> erasure(a.getGenericComponentType()).arrayType();
            case TypeVariable<?> v -> erasure(v.getBounds()[0]);
            case null, default -> Object.class;
        };
    }
}
