package dev.colossal.codec;

/**
 * Stands for a record or class codec still being built, so that a recursive type can refer to
 * itself; the real codec is set once it exists, before any value passes through.
 */
final class LateCodec<T> extends NamedCodec<T> {

    private WireCodec<T> target;

    LateCodec(String typeName) {
        super(typeName);
    }

    void bind(WireCodec<T> codec) {
        this.target = codec;
    }

    @Override
    public long size(T v) {
        return target.size(v);
    }

    @Override
    public void write(T v, Output out) {
        target.write(v, out);
    }

    @Override
    public T read(Input in) {
        return target.read(in);
    }

    @Override
    public String schema() {
        // a back-reference by name: the enclosing record's schema text spells the structure out once
        return "^" + typeName();
    }
}
