package dev.speedrun.nn;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

/**
 * All parameters of a network in one flat buffer and all gradients in another (as llm.c does), so
 * that an optimizer is one loop. Tensors are named views ({@link Tensor}) into the buffers, in the
 * order they were declared; names are the ones written to safetensors checkpoints.
 */
public final class Params {
  /** A named slice [offset, offset + size) of the buffers with a shape. */
  public record Tensor(String name, int offset, int[] shape) {
    public int size() {
      int s = 1;
      for (int d : shape) s *= d;
      return s;
    }

    /** Matrices (2-D or more) get Muon; vectors and gains get Adam. */
    public boolean isMatrix() {
      return shape.length >= 2;
    }
  }

  private final List<Tensor> tensors = new ArrayList<>();
  private int size;
  public float[] data = new float[0];
  public float[] grad = new float[0];

  /** Declares a tensor; call {@link #allocate()} once all are declared. Returns its offset. */
  public Tensor add(String name, int... shape) {
    if (data.length != 0) throw new IllegalStateException("params already allocated");
    for (Tensor t : tensors) {
      if (t.name().equals(name)) throw new IllegalArgumentException("duplicate tensor name " + name);
    }
    Tensor t = new Tensor(name, size, shape.clone());
    tensors.add(t);
    size += t.size();
    return t;
  }

  public void allocate() {
    data = new float[size];
    grad = new float[size];
  }

  public int size() { return size; }

  public List<Tensor> tensors() { return Collections.unmodifiableList(tensors); }

  public Tensor tensor(String name) {
    for (Tensor t : tensors) if (t.name().equals(name)) return t;
    throw new IllegalArgumentException("no tensor named " + name);
  }

  public void zeroGrad() {
    java.util.Arrays.fill(grad, 0f);
  }
}
