// The web demo: replays the draws the glgpgpu package recorded (runs/*.js) with
// its own shaders (data.js) in WebGL2, and shows each draw: the triangles and
// their vertex table, the fragments the browser's GPU created, the texture
// values, the kernel's source.  It computes nothing its own way except the
// float64 reference the result is checked against.
'use strict';
(function () {
  const G = window.GLGPGPU = window.GLGPGPU || {};
  G.runs = G.runs || {};
  const waiting = {};

  G.addRun = function (run) {
    G.runs[run.name] = run;
    (waiting[run.name] || []).forEach((resolve) => resolve(run));
    delete waiting[run.name];
  };

  class PageError extends Error {}

  const runName = (alg, packed, m) => `${alg}-${packed ? 'packed' : 'full'}-${m}`;

  function loadRun(alg, packed, m) {
    const name = runName(alg, packed, m);
    if (G.runs[name]) return Promise.resolve(G.runs[name]);
    return new Promise((resolve, reject) => {
      (waiting[name] = waiting[name] || []).push(resolve);
      const s = document.createElement('script');
      s.src = `runs/${name}.js`;
      s.onerror = () => reject(new PageError(`runs/${name}.js is missing: this copy of the page was written ` +
        `for m in {${G.data.sizes.join(', ')}} (glgpgpu demo --web DIR --sizes ...)`));
      document.head.appendChild(s);
    });
  }

  // -- the GPU: textures, programs, draws -------------------------------------------------
  const ATTRIBUTES = ['in_pos', 'in_t0', 'in_t1'];

  class GPU {
    constructor() {
      const canvas = document.createElement('canvas');   // never shown: every draw goes to a texture
      const gl = canvas.getContext('webgl2', {antialias: false});
      if (!gl) {
        throw new PageError('This browser has no WebGL2, so it cannot run the kernels. ' +
          'Any current Chrome, Edge, Firefox or Safari (15 or later) has it.');
      }
      if (!gl.getExtension('EXT_color_buffer_float')) {
        throw new PageError('This browser\'s WebGL2 lacks EXT_color_buffer_float: it cannot render into ' +
          'float textures, so the kernels\' results cannot be kept or read back. The page stops here rather ' +
          'than show numbers it cannot trust. (Desktop browsers on most GPUs have it; some phones do not.)');
      }
      this.gl = gl;
      this.floatBlend = !!gl.getExtension('EXT_float_blend');   // additive blending into float textures
      this.renderer = gl.getParameter(gl.RENDERER);
      const dbg = gl.getExtension('WEBGL_debug_renderer_info');
      if (dbg) this.renderer = gl.getParameter(dbg.UNMASKED_RENDERER_WEBGL);
      this.programs = {};
      this.vao = gl.createVertexArray();
      this.vbo = gl.createBuffer();
      this.targets = {};
    }

    program(kernel) {
      if (this.programs[kernel]) return this.programs[kernel];
      const gl = this.gl;
      const source = (name) => {
        const s = G.data.shaders[name];
        if (!s) throw new PageError(`data.js has no shader ${name}`);
        return s.es;
      };
      const compile = (type, name) => {
        const sh = gl.createShader(type);
        gl.shaderSource(sh, source(name));
        gl.compileShader(sh);
        if (!gl.getShaderParameter(sh, gl.COMPILE_STATUS)) {
          throw new PageError(`${name} does not compile in this browser: ${gl.getShaderInfoLog(sh)}`);
        }
        return sh;
      };
      const prog = gl.createProgram();
      gl.attachShader(prog, compile(gl.VERTEX_SHADER, 'common.vert'));
      gl.attachShader(prog, compile(gl.FRAGMENT_SHADER, kernel + '.frag'));
      ATTRIBUTES.forEach((a, i) => gl.bindAttribLocation(prog, i, a));
      gl.linkProgram(prog);
      if (!gl.getProgramParameter(prog, gl.LINK_STATUS)) {
        throw new PageError(`${kernel} does not link: ${gl.getProgramInfoLog(prog)}`);
      }
      const uniforms = {};
      const samplers = [];
      for (let i = 0; i < gl.getProgramParameter(prog, gl.ACTIVE_UNIFORMS); i++) {
        const u = gl.getActiveUniform(prog, i);
        uniforms[u.name] = {type: u.type, loc: gl.getUniformLocation(prog, u.name)};
        if (u.type === gl.SAMPLER_2D) samplers.push(u.name);
      }
      return (this.programs[kernel] = {prog, uniforms, samplers});
    }

    texture(w, h, data, internal, format, type) {
      const gl = this.gl;
      const tex = gl.createTexture();
      gl.bindTexture(gl.TEXTURE_2D, tex);
      gl.texImage2D(gl.TEXTURE_2D, 0, internal || gl.R32F, w, h, 0, format || gl.RED, type || gl.FLOAT, data || null);
      for (const p of [gl.TEXTURE_MIN_FILTER, gl.TEXTURE_MAG_FILTER]) gl.texParameteri(gl.TEXTURE_2D, p, gl.NEAREST);
      for (const p of [gl.TEXTURE_WRAP_S, gl.TEXTURE_WRAP_T]) gl.texParameteri(gl.TEXTURE_2D, p, gl.CLAMP_TO_EDGE);
      const fbo = gl.createFramebuffer();
      gl.bindFramebuffer(gl.FRAMEBUFFER, fbo);
      gl.framebufferTexture2D(gl.FRAMEBUFFER, gl.COLOR_ATTACHMENT0, gl.TEXTURE_2D, tex, 0);
      if (gl.checkFramebufferStatus(gl.FRAMEBUFFER) !== gl.FRAMEBUFFER_COMPLETE) {
        throw new PageError(`a ${w} x ${h} float texture cannot be a render target here`);
      }
      return {tex, fbo, w, h};
    }

    matrixTexture(t) {
      return this.texture(t.w, t.h, Float32Array.from(t.data, (v) => (v === null ? NaN : v)));
    }

    /** the red channel of a float texture, row 0 first */
    read(t) {
      const gl = this.gl;
      const px = new Float32Array(t.w * t.h * 4);
      gl.bindFramebuffer(gl.FRAMEBUFFER, t.fbo);
      gl.readPixels(0, 0, t.w, t.h, gl.RGBA, gl.FLOAT, px);
      const out = new Float32Array(t.w * t.h);
      for (let i = 0; i < out.length; i++) out[i] = px[4 * i];
      return out;
    }

    /** the figure's vertex table, triangle by triangle, into the vertex array */
    geometry(draw) {
      const gl = this.gl;
      const data = [];
      if (draw.primitive === 'points') for (const c of draw.corners) data.push(...c);
      else for (const tri of draw.triangles) for (const v of tri) data.push(...draw.corners[v]);
      gl.bindVertexArray(this.vao);
      gl.bindBuffer(gl.ARRAY_BUFFER, this.vbo);
      gl.bufferData(gl.ARRAY_BUFFER, new Float32Array(data), gl.STREAM_DRAW);
      [2, 3, 3].reduce((offset, n, i) => {
        gl.enableVertexAttribArray(i);
        gl.vertexAttribPointer(i, n, gl.FLOAT, false, 32, offset);
        return offset + 4 * n;
      }, 0);
      return data.length / 8;
    }

    /** run `kernel` over the fragments `draw`'s triangles cover in `target` */
    run(kernel, target, draw, inputs, uniforms) {
      const gl = this.gl;
      const p = this.program(kernel);
      gl.useProgram(p.prog);
      p.samplers.forEach((name, unit) => {
        if (!inputs[name]) throw new PageError(`kernel ${kernel} needs input texture ${name}`);
        gl.activeTexture(gl.TEXTURE0 + unit);
        gl.bindTexture(gl.TEXTURE_2D, inputs[name].tex);
        gl.uniform1i(p.uniforms[name].loc, unit);
      });
      const [w, h] = draw.size;
      // common.vert's projection: [0, w] x [0, h] onto clip space (as pyrr builds it in the package)
      gl.uniformMatrix4fv(p.uniforms.u_proj.loc, false,
        new Float32Array([2 / w, 0, 0, 0, 0, 2 / h, 0, 0, 0, 0, -1, 0, -1, -1, 0, 1]));
      for (const [name, value] of Object.entries(uniforms || {})) {
        const u = p.uniforms[name];
        if (!u) continue;                       // declared but optimized away, as in the package
        if (u.type === gl.FLOAT) gl.uniform1f(u.loc, value); else gl.uniform1i(u.loc, value);
      }
      const n = this.geometry(draw);
      gl.bindFramebuffer(gl.FRAMEBUFFER, target.fbo);
      gl.viewport(0, 0, w, h);
      gl.drawArrays(draw.primitive === 'points' ? gl.POINTS : gl.TRIANGLES, 0, n);
    }

    /** fragments per texel: the draw again, into an 8-bit target with additive blending */
    count(draw) {
      const gl = this.gl;
      const [w, h] = draw.size;
      const key = `count ${w}x${h}`;
      const t = this.targets[key] || (this.targets[key] = this.texture(w, h, null, gl.RGBA8, gl.RGBA, gl.UNSIGNED_BYTE));
      gl.bindFramebuffer(gl.FRAMEBUFFER, t.fbo);
      gl.clearColor(0, 0, 0, 0);
      gl.clear(gl.COLOR_BUFFER_BIT);
      gl.enable(gl.BLEND);
      gl.blendFunc(gl.ONE, gl.ONE);
      this.run('constant', t, draw, {}, {u_value: 1 / 255});
      gl.disable(gl.BLEND);
      const px = new Uint8Array(w * h * 4);
      gl.bindFramebuffer(gl.FRAMEBUFFER, t.fbo);
      gl.readPixels(0, 0, w, h, gl.RGBA, gl.UNSIGNED_BYTE, px);
      const out = new Uint8Array(w * h);
      for (let i = 0; i < out.length; i++) out[i] = px[4 * i];
      return out;
    }

    /** T0 and T1 as the rasterizer interpolated them at each texel the draw covers */
    probe(draw) {
      const gl = this.gl;
      const [w, h] = draw.size;
      const key = `probe ${w}x${h}`;
      let t = this.targets[key];
      if (!t) {
        const a = this.texture(w, h, null, gl.RGBA32F, gl.RGBA, gl.FLOAT);
        const b = this.texture(w, h, null, gl.RGBA32F, gl.RGBA, gl.FLOAT);
        gl.bindFramebuffer(gl.FRAMEBUFFER, a.fbo);
        gl.framebufferTexture2D(gl.FRAMEBUFFER, gl.COLOR_ATTACHMENT1, gl.TEXTURE_2D, b.tex, 0);
        t = this.targets[key] = {fbo: a.fbo, a, b, w, h};
      }
      gl.bindFramebuffer(gl.FRAMEBUFFER, t.fbo);
      gl.drawBuffers([gl.COLOR_ATTACHMENT0, gl.COLOR_ATTACHMENT1]);
      gl.clearBufferfv(gl.COLOR, 0, [0, 0, 0, 0]);
      gl.clearBufferfv(gl.COLOR, 1, [0, 0, 0, 0]);
      this.run('probe_coordinates', t, draw, {}, {});
      const read = (att) => {
        const px = new Float32Array(w * h * 4);
        gl.bindFramebuffer(gl.FRAMEBUFFER, t.fbo);
        gl.readBuffer(att);
        gl.readPixels(0, 0, w, h, gl.RGBA, gl.FLOAT, px);
        return px;
      };
      const out = {t0: read(gl.COLOR_ATTACHMENT0), t1: read(gl.COLOR_ATTACHMENT1)};
      gl.readBuffer(gl.COLOR_ATTACHMENT0);
      gl.drawBuffers([gl.COLOR_ATTACHMENT0]);
      return out;
    }

    release(textures) {
      for (const t of textures) {
        this.gl.deleteTexture(t.tex);
        this.gl.deleteFramebuffer(t.fbo);
      }
    }
  }

  // -- one run: every draw replayed, the target and the fragment counts kept per step ---------
  function replay(gpu, run) {
    const tex = run.textures.map((t) => gpu.matrixTexture(t));
    const steps = run.draws.map((d) => {
      const inputs = {};
      for (const [sampler, [key]] of Object.entries(d.inputs)) inputs[sampler] = tex[key];
      const gl = gpu.gl;
      if (d.blend) {
        if (!gpu.floatBlend) {
          gpu.release(tex);
          throw new PageError('This run adds its points into a float texture by blending, and this browser\'s ' +
            'WebGL2 lacks EXT_float_blend: it cannot replay it (the papers\' own runs need no blending).');
        }
        gl.enable(gl.BLEND);
        gl.blendFunc(gl.ONE, gl.ONE);
      }
      gpu.run(d.kernel, tex[d.target], d, inputs, d.uniforms);
      gl.disable(gl.BLEND);
      const after = gpu.read(tex[d.target]);
      const counts = gpu.count(d);
      return {after, counts, fragments: counts.reduce((a, b) => a + b, 0)};
    });
    const result = gpu.read(tex[run.result]);
    gpu.release(tex);
    return {run, steps, result, check: checkResult(run, result)};
  }

  /** texture `key`'s values after draw `s` (s = -1: as first drawn with) */
  function valuesAt(state, key, s) {
    for (let i = s; i >= 0; i--) if (state.run.draws[i].target === key) return state.steps[i].after;
    return Float32Array.from(state.run.textures[key].data, (v) => (v === null ? NaN : v));
  }

  // -- the float64 reference, in JavaScript ------------------------------------------------------
  function checkResult(run, result) {
    const m = run.m;
    const tex = (key) => run.textures[key];
    const lower = (values, w) => {               // the lower triangle through the package's layout
      const out = [];
      let e = 0;
      for (let i = 0; i < m; i++) {
        out.push(new Float64Array(m));
        for (let j = 0; j <= i; j++, e++) {
          const [x, y] = run.layout[e];
          out[i][j] = values[y * w + x];
        }
      }
      return out;
    };
    const w = tex(run.result).w;
    const got = lower(result, w);
    let ref;
    if (run.reference.kind !== 'cholesky') {          // A D A^T: A from its texture, or with the run (points)
      const fromRun = run.reference.kind === 'adat-values';
      const A = fromRun ? run.reference.A : tex(run.reference.A).data;
      const d = fromRun ? run.reference.d : tex(run.reference.d).data;
      const n = fromRun ? run.reference.n : tex(run.reference.A).w;
      ref = [];
      for (let i = 0; i < m; i++) {
        ref.push(new Float64Array(m));
        for (let j = 0; j <= i; j++) {
          let s = 0;
          for (let k = 0; k < n; k++) s += A[i * n + k] * d[k] * A[j * n + k];
          ref[i][j] = s;
        }
      }
    } else {
      const C = lower(tex(run.reference.C).data, tex(run.reference.C).w);
      ref = C.map((row) => Float64Array.from(row));
      for (let k = 0; k < m; k++) {              // float64 Cholesky, column by column
        ref[k][k] = Math.sqrt(ref[k][k]);
        for (let i = k + 1; i < m; i++) ref[i][k] /= ref[k][k];
        for (let j = k + 1; j < m; j++) for (let i = j; i < m; i++) ref[i][j] -= ref[i][k] * ref[j][k];
      }
    }
    let err = 0;
    let scale = 0;
    let finite = true;
    for (let i = 0; i < m; i++) {
      for (let j = 0; j <= i; j++) {
        if (!Number.isFinite(got[i][j])) finite = false;
        err = Math.max(err, Math.abs(got[i][j] - ref[i][j]));
        scale = Math.max(scale, Math.abs(ref[i][j]));
      }
    }
    return {relative: finite ? err / (scale || 1) : NaN, finite, what: run.reference.kind === 'cholesky' ? 'L' : 'C'};
  }

  // -- drawing a texture on a 2D canvas ---------------------------------------------------------
  function ramp(s) {                              // viridis-like, as the package's pictures
    const a = [68, 1, 84];
    const b = [33, 145, 140];
    const c = [253, 231, 37];
    const mix = (p, q, t) => p.map((v, i) => Math.round(v + (q[i] - v) * t));
    return s < 0.5 ? mix(a, b, s * 2) : mix(b, c, s * 2 - 1);
  }

  function fmt(v) {
    if (!Number.isFinite(v)) return String(v);
    if (v === 0) return '0';
    const a = Math.abs(v);
    return a >= 1e4 || a < 1e-3 ? v.toExponential(1) : String(Number(v.toPrecision(3)));
  }

  /** the texture (w x h values) with, optionally, the draw's covered texels and triangles */
  function paint(canvas, w, h, values, opts) {
    const o = opts || {};
    let [x0, x1, y0, y1] = [-0.5, w + 0.5, -0.5, h + 0.5];
    if (o.draw) {
      const xs = o.draw.corners.map((c) => c[0]);
      const ys = o.draw.corners.map((c) => c[1]);
      x0 = Math.min(-1, Math.min(...xs) - 0.8);
      x1 = Math.max(w + 1, Math.max(...xs) + 0.8);
      y0 = Math.min(-1, Math.min(...ys) - 0.8);
      y1 = Math.max(h + 1, Math.max(...ys) + 0.8);
    }
    const cell = Math.max(4, Math.min(o.maxCell || 48, Math.floor((o.box || 600) / Math.max(x1 - x0, y1 - y0))));
    canvas.width = Math.ceil((x1 - x0) * cell);
    canvas.height = Math.ceil((y1 - y0) * cell);
    const c = canvas.getContext('2d');
    const X = (x) => (x - x0) * cell;
    const Y = (y) => (y - y0) * cell;        // row 0 at the top
    c.fillStyle = '#fff';
    c.fillRect(0, 0, canvas.width, canvas.height);
    let lo = Infinity;
    let hi = -Infinity;
    for (const v of values) if (Number.isFinite(v)) { lo = Math.min(lo, v); hi = Math.max(hi, v); }
    for (let y = 0; y < h; y++) {
      for (let x = 0; x < w; x++) {
        const v = values[y * w + x];
        const [r, g, b] = Number.isFinite(v) ? ramp(hi > lo ? (v - lo) / (hi - lo) : 0.5) : [150, 150, 150];
        c.fillStyle = `rgba(${r},${g},${b},0.75)`;
        c.fillRect(X(x), Y(y), cell, cell);
        if (cell >= 26) {
          c.fillStyle = '#000';
          c.font = `${Math.min(12, cell / 3.2)}px sans-serif`;
          c.textAlign = 'center';
          c.textBaseline = 'middle';
          c.fillText(fmt(v), X(x + 0.5), Y(y + 0.5));
        }
      }
    }
    c.strokeStyle = '#999';
    c.lineWidth = 0.5;
    for (let x = 0; x <= w; x++) { c.beginPath(); c.moveTo(X(x), Y(0)); c.lineTo(X(x), Y(h)); c.stroke(); }
    for (let y = 0; y <= h; y++) { c.beginPath(); c.moveTo(X(0), Y(y)); c.lineTo(X(w), Y(y)); c.stroke(); }
    if (o.counts) {
      c.strokeStyle = 'orange';
      c.lineWidth = Math.max(1.5, cell / 14);
      for (let y = 0; y < h; y++) {
        for (let x = 0; x < w; x++) if (o.counts[y * w + x]) c.strokeRect(X(x + 0.08), Y(y + 0.08), cell * 0.84, cell * 0.84);
      }
    }
    if (o.draw) {
      c.strokeStyle = 'red';
      c.lineWidth = 1.5;
      c.setLineDash([6, 4]);
      for (const tri of o.draw.triangles) {
        c.beginPath();
        tri.forEach((v, i) => (i ? c.lineTo : c.moveTo).call(c, X(o.draw.corners[v][0]), Y(o.draw.corners[v][1])));
        c.closePath();
        c.stroke();
      }
      c.setLineDash([]);
      c.fillStyle = 'darkred';
      c.font = 'bold 12px sans-serif';
      o.draw.corners.forEach((v, i) => {
        c.beginPath();
        c.arc(X(v[0]), Y(v[1]), 3, 0, 2 * Math.PI);
        c.fill();
        c.fillText(String(i + 1), X(v[0]) + 5, Y(v[1]) - 5);
      });
    }
    if (o.hover) {
      c.strokeStyle = '#000';
      c.lineWidth = 2;
      c.strokeRect(X(o.hover[0]), Y(o.hover[1]), cell, cell);
    }
    return {toTexel: (px, py) => [Math.floor(px / cell + x0), Math.floor(py / cell + y0)]};
  }

  // -- the page ------------------------------------------------------------------------------------
  const $ = (id) => document.getElementById(id);
  const ui = {state: null, step: 0, timer: null, probes: {}, hover: null, view: null};

  function status(text, error) {
    const el = $('status');
    el.textContent = text;
    el.className = error ? 'error' : '';
  }

  function esc(s) {
    return String(s).replace(/[&<>]/g, (ch) => ({'&': '&amp;', '<': '&lt;', '>': '&gt;'}[ch]));
  }

  const coord = (v, n) => '(' + v.slice(0, n).map(fmt).join(', ') + ')';

  function show() {
    const st = ui.state;
    if (!st) return;
    const s = ui.step;
    const run = st.run;
    const d = run.draws[s];
    const step = st.steps[s];
    const [w, h] = d.size;
    $('step').max = String(run.draws.length - 1);
    $('step').value = String(s);
    $('stepLabel').textContent = `draw ${s + 1} of ${run.draws.length}`;
    $('drawTitle').textContent = `${d.kernel} \u2192 ${d.targetName} (${w} \u00d7 ${h})`;
    $('explain').textContent = `${d.label}. ${d.explain}`;
    ui.view = paint($('view'), w, h, step.after, {draw: d, counts: step.counts, hover: ui.hover});
    const same = (a) => (a === step.fragments ? '\u2713' : `\u2717 (${a})`);
    $('facts').innerHTML = [
      ['kernel', `<code>${esc(d.kernel)}</code>`],
      ['target', `${esc(d.targetName)}, ${w} \u00d7 ${h} texels`],
      ['inputs', Object.entries(d.inputs).map(([smp, [, name]]) => `${esc(smp)} \u2190 ${esc(name)}`).join(', ') || 'none'],
      ['uniforms', Object.entries(d.uniforms).map(([k, v]) => `${esc(k)} = ${v}`).join(', ') || 'none'],
      ['primitive', d.primitive === 'points' ? 'points, one fragment each' : 'triangles'],
      ['output', d.blend ? 'added to the target (additive blending)' : 'written'],
      ['fragments (your GPU)', `<b id="fragments">${step.fragments}</b>`],
      ['the package\'s GL run', `${d.fragments} ${same(d.fragments)}`],
    ].map(([k, v]) => `<tr><th>${k}</th><td>${v}</td></tr>`).join('');
    const hasT0 = d.names.includes('T0');
    const hasT1 = d.names.includes('T1');
    $('vertices').innerHTML = '<tr><th>#</th><th>V</th>' + (hasT0 ? '<th>T0</th>' : '') + (hasT1 ? '<th>T1</th>' : '') +
      '</tr>' + d.corners.map((c, i) => `<tr><td>${i + 1}</td><td>${coord(c, 2)}</td>` +
        (hasT0 ? `<td>${coord(c.slice(2), c[4] ? 3 : 2)}</td>` : '') + (hasT1 ? `<td>${coord(c.slice(5), 2)}</td>` : '') +
        '</tr>').join('');
    const sh = G.data.shaders[d.kernel + '.frag'];
    $('shaderPath').textContent = `(${sh.path}, as GLSL ES 3.00)`;
    $('shader').textContent = sh.es;
    const inputs = $('inputs');
    inputs.innerHTML = '';
    for (const [smp, [key, name]] of Object.entries(d.inputs)) {
      const t = run.textures[key];
      const fig = document.createElement('figure');
      const cv = document.createElement('canvas');
      paint(cv, t.w, t.h, valuesAt(st, key, s - 1), {box: 220, maxCell: 28});
      fig.appendChild(cv);
      const cap = document.createElement('figcaption');
      cap.textContent = `sampler ${smp} \u2190 ${name} (${t.w} \u00d7 ${t.h})`;
      fig.appendChild(cap);
      inputs.appendChild(fig);
    }
    const ck = st.check;
    $('check').innerHTML = `After all ${run.draws.length} draws, ${ck.what} (read back from the float texture) ` +
      `differs from a float64 computation of it by <b id="error">${ck.finite ? ck.relative.toExponential(2) : 'non-finite values'}</b>` +
      ' relative to its largest entry; float32 rounds at 6.0e-8 per operation.';
    showHover();
  }

  function showHover() {
    const el = $('hover');
    const st = ui.state;
    if (!st || !ui.hover) { el.textContent = 'hover over a texel'; return; }
    const [x, y] = ui.hover;
    const d = st.run.draws[ui.step];
    const [w, h] = d.size;
    if (x < 0 || y < 0 || x >= w || y >= h) { el.textContent = 'outside the target texture'; return; }
    const i = y * w + x;
    let html = `texel (x = ${x}, y = ${y}) of ${esc(d.targetName)} = <b>${fmt(st.steps[ui.step].after[i])}</b>. `;
    let k = ui.step;
    while (k >= 0 && !(st.run.draws[k].target === d.target && st.steps[k].counts[i])) k--;
    if (k < 0) {
      html += 'No draw up to this one wrote it: it holds what was uploaded (or cleared) before the first draw.';
    } else {
      const dk = st.run.draws[k];
      const p = ui.probes[k] || (ui.probes[k] = st.gpu.probe(dk));
      const t0 = Array.from(p.t0.slice(4 * i, 4 * i + 3));
      const t1 = Array.from(p.t1.slice(4 * i, 4 * i + 3));
      html += `Last written by draw ${k + 1}, <code>${esc(dk.kernel)}</code>, from ` +
        Object.entries(dk.inputs).map(([smp, [, name]]) => `${esc(smp)} = ${esc(name)}`).join(', ') +
        (dk.names.includes('T0') ? `; its fragment got T0 = ${coord(t0, dk.corners.some((c) => c[4]) ? 3 : 2)}` : '') +
        (dk.names.includes('T1') ? `, T1 = ${coord(t1, 2)}` : '') +
        ' (interpolated by your GPU; the kernel fetches at these texel coordinates or their swizzles).';
    }
    el.innerHTML = html;
  }

  function setStep(s) {
    if (!ui.state) return;
    ui.step = Math.max(0, Math.min(ui.state.run.draws.length - 1, s));
    show();
    remember();
  }

  function choice() {
    const m = Math.max(1, Math.min(64, parseInt($('m').value, 10) || 1));
    return {alg: $('algorithm').value, packed: $('format').value === 'packed', m};
  }

  function remember() {
    const c = choice();
    const q = `?algorithm=${c.alg}&format=${c.packed ? 'packed' : 'full'}&m=${c.m}&step=${ui.step + 1}`;
    try { history.replaceState(null, '', q); } catch (e) { /* some browsers refuse on file:// */ }
  }

  async function choose(step) {
    const c = choice();
    $('m').value = String(c.m);
    stop();
    status(`running ${c.alg}, ${c.packed ? 'packed' : 'full'}, m = ${c.m} on your GPU\u2026`);
    try {
      const run = await loadRun(c.alg, c.packed, c.m);
      const gpu = ui.gpu || (ui.gpu = new GPU());
      const t = performance.now();
      ui.state = Object.assign(replay(gpu, run), {gpu});
      ui.probes = {};
      ui.hover = null;
      status(`${run.draws.length} draws replayed on ${gpu.renderer} in ${(performance.now() - t).toFixed(0)} ms`);
      setStep(step === undefined ? 0 : step);
    } catch (e) {
      ui.state = null;
      status(e.message, true);
      if (!(e instanceof PageError)) throw e;
    }
  }

  function stop() {
    if (ui.timer) clearInterval(ui.timer);
    ui.timer = null;
    $('play').textContent = 'play';
  }

  function play() {
    if (ui.timer) { stop(); return; }
    if (ui.state && ui.step === ui.state.run.draws.length - 1) setStep(0);
    $('play').textContent = 'pause';
    ui.timer = setInterval(() => {
      if (!ui.state || ui.step >= ui.state.run.draws.length - 1) { stop(); return; }
      setStep(ui.step + 1);
    }, 500);
  }

  // -- the self-test the package's test suite drives (?selftest=1&sizes=1,2,6) -----------------
  async function selftest(params) {
    const report = {cases: []};
    try {
      const gpu = new GPU();
      report.renderer = gpu.renderer;
      const sizes = (params.get('sizes') || '1,2,3').split(',').map(Number);
      for (const alg of G.data.algorithms) {
        for (const packed of [false, true]) {
          for (const m of sizes) {
            const st = replay(gpu, await loadRun(alg, packed, m));
            report.cases.push({name: st.run.name, w: st.run.textures[st.run.result].w, h: st.run.textures[st.run.result].h,
              result: Array.from(st.result), fragments: st.steps.map((x) => x.fragments), relative: st.check.relative});
          }
        }
      }
      status(`self-test: ${report.cases.length} runs on ${gpu.renderer}`);
    } catch (e) {
      report.error = e.message;
      status(e.message, true);
    }
    const out = $('report');
    out.textContent = JSON.stringify(report);
    out.dataset.done = '1';
  }

  function start() {
    if (!G.data) { status('data.js did not load: write the page with glgpgpu demo --web DIR', true); return; }
    const params = new URLSearchParams(location.search);
    if (params.get('selftest')) { selftest(params); return; }
    if (params.get('algorithm')) $('algorithm').value = params.get('algorithm');
    if (params.get('format')) $('format').value = params.get('format');
    if (params.get('m')) $('m').value = params.get('m');
    $('m').max = String(Math.max(...G.data.sizes));
    $('algorithm').onchange = $('format').onchange = $('m').onchange = () => choose(0);
    $('first').onclick = () => setStep(0);
    $('back').onclick = () => setStep(ui.step - 1);
    $('forward').onclick = () => setStep(ui.step + 1);
    $('last').onclick = () => setStep(Infinity);
    $('play').onclick = play;
    $('step').oninput = () => setStep(parseInt($('step').value, 10));
    document.addEventListener('keydown', (e) => {
      if (e.target.tagName === 'INPUT' && e.target.type === 'number') return;
      const keys = {ArrowRight: 1, ArrowLeft: -1};
      if (e.key in keys) setStep(ui.step + keys[e.key]);
      else if (e.key === 'Home') setStep(0);
      else if (e.key === 'End') setStep(Infinity);
      else if (e.key === ' ') { play(); e.preventDefault(); }
    });
    $('view').addEventListener('mousemove', (e) => {
      if (!ui.view) return;
      const r = $('view').getBoundingClientRect();
      const sx = $('view').width / r.width;
      const at = ui.view.toTexel((e.clientX - r.left) * sx, (e.clientY - r.top) * sx);
      if (!ui.hover || at[0] !== ui.hover[0] || at[1] !== ui.hover[1]) { ui.hover = at; show(); }
    });
    $('view').addEventListener('mouseleave', () => { ui.hover = null; show(); });
    const hover = params.get('hover');
    choose(Math.max(0, (parseInt(params.get('step'), 10) || 1) - 1)).then(() => {
      if (hover && ui.state) { ui.hover = hover.split(',').map(Number); show(); }
    });
  }

  start();
})();
