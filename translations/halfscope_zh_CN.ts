<?xml version="1.0" encoding="utf-8"?>
<!DOCTYPE TS>
<TS version="2.1" language="zh_CN">
<context>
    <name>CompareView</name>
    <message>
        <location filename="../widgets/plots/compare_view.cpp" line="+72"/>
        <source>latent divergence</source>
        <translation>潜变量偏离</translation>
    </message>
    <message>
        <location line="-23"/>
        <location line="+263"/>
        <source>step</source>
        <translation>步</translation>
    </message>
    <message>
        <location line="-259"/>
        <source>divergence</source>
        <translation>偏离</translation>
    </message>
    <message>
        <location line="+50"/>
        <source>auto</source>
        <translation>自动</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>x%1</source>
        <translation>×%1</translation>
    </message>
    <message>
        <location line="+5"/>
        <source>A:</source>
        <translation>A：</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>B:</source>
        <translation>B：</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>gain</source>
        <translation>增益</translation>
    </message>
    <message>
        <location line="+8"/>
        <source>Difference</source>
        <translation>差异</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>The difference appears when both runs have a final image.</source>
        <translation>两次运行都有最终图像后，这里会显示差异。</translation>
    </message>
    <message>
        <location line="+34"/>
        <source>Run A</source>
        <translation>运行 A</translation>
    </message>
    <message>
        <location line="+0"/>
        <source>Run B</source>
        <translation>运行 B</translation>
    </message>
    <message>
        <location line="+47"/>
        <source>Waiting for the final image of this run.</source>
        <translation>正在等待此次运行的最终图像。</translation>
    </message>
    <message>
        <location line="+107"/>
        <source>Per step: %1, %2 vs %3 (a red x marks a step that is not finite)</source>
        <translation>每一步的%1，%2 对比 %3（红色 x 标出出现非有限值的步）</translation>
    </message>
    <message>
        <location line="+29"/>
        <source>Difference |%1 - %2|</source>
        <translation>差异 |%1 - %2|</translation>
    </message>
    <message>
        <location line="+17"/>
        <source>the same run twice</source>
        <translation>两侧是同一次运行</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>max %1/255, mean %2/255, shown x%3</source>
        <translation>最大 %1/255，平均 %2/255，显示放大 ×%3</translation>
    </message>
    <message>
        <location line="+6"/>
        <source>; %1 pixels NaN/Inf in either run (magenta/cyan)</source>
        <translation>；任一运行中有 %1 个 NaN/Inf 像素（品红/青色）</translation>
    </message>
    <message>
        <location filename="../widgets/plots/view_difference.cpp" line="+15"/>
        <source>Both runs need a final image.</source>
        <translation>两次运行都需要有最终图像。</translation>
    </message>
    <message>
        <location line="+4"/>
        <source>The images differ in size (%1x%2 and %3x%4).</source>
        <translation>图像尺寸不同（%1x%2 与 %3x%4）。</translation>
    </message>
</context>
<context>
    <name>DeviceChoice</name>
    <message>
        <location filename="../widgets/controls/ctl_device_choice.cpp" line="+20"/>
        <source>%1 (%2, compute capability %3.%4)</source>
        <translation>%1（%2，计算能力 %3.%4）</translation>
    </message>
    <message>
        <location line="+8"/>
        <source>A memory cap applies to a GPU: the CPU runs in the system&apos;s memory.</source>
        <translation>内存上限只适用于 GPU：CPU 使用系统内存运行。</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>The memory cap must be a positive number of GB.</source>
        <translation>内存上限必须是正数（单位 GB）。</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>%1 holds %2 GB: a cap of %3 GB is more than it has.</source>
        <translation>%1 有 %2 GB：%3 GB 的上限超过了它的容量。</translation>
    </message>
    <message>
        <location line="+10"/>
        <source>CPU</source>
        <translation>CPU</translation>
    </message>
    <message>
        <location line="+5"/>
        <source>CPU: fp32 runs natively; fp16 and bf16 are emulated (fp32 compute, every layer&apos;s output rounded to the format, as a GPU stores it), so they overflow where a GPU would.</source>
        <translation>CPU：fp32 原生运行；fp16 和 bf16 为模拟运行（以 fp32 计算，每一层的输出都按 GPU 的存储方式舍入为该格式），因此溢出的位置与在 GPU 上相同。</translation>
    </message>
    <message>
        <location line="+5"/>
        <source>CPU: fp32 and bf16 run natively (bf16 through oneDNN&apos;s bf16 instructions); fp16 is emulated (fp32 compute, every layer&apos;s output rounded to fp16), so it overflows where a GPU would.</source>
        <translation>CPU：fp32 和 bf16 原生运行（bf16 通过 oneDNN 使用 bf16 指令）；fp16 为模拟运行（以 fp32 计算，每一层的输出都舍入为 fp16），因此溢出的位置与在 GPU 上相同。</translation>
    </message>
    <message>
        <location line="+5"/>
        <source>CPU: bf16 runs natively without bf16 instructions: about 13x slower than fp32 and not a GPU&apos;s arithmetic (Settings: bf16 on the CPU). fp16 is emulated.</source>
        <translation>CPU：bf16 在没有 bf16 指令的情况下原生运行：比 fp32 慢约 13 倍，且与 GPU 的运算方式不同（设置：CPU 上的 bf16）。fp16 为模拟运行。</translation>
    </message>
    <message>
        <location line="+16"/>
        <source>compute capability %1.%2: fp16 and bf16 run natively</source>
        <translation>计算能力 %1.%2：fp16 和 bf16 均原生运行</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>compute capability %1.%2: no native bf16; bf16 runs emulated and slowly</source>
        <translation>计算能力 %1.%2：不支持原生 bf16；bf16 以模拟方式运行，速度较慢</translation>
    </message>
</context>
<context>
    <name>Engine</name>
    <message>
        <location filename="../widgets/controls/engine_messages.cpp" line="+13"/>
        <location filename="../widgets/controls/report_phrases.cpp" line="+22"/>
        <source>ok</source>
        <translation>正常</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>nan/inf</source>
        <translation>NaN/Inf</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>black</source>
        <translation>全黑</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>flat</source>
        <translation>纯色</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>%1 NaN and %2 Inf values of %3; saved as a PNG they turn black</source>
        <translation>%3 个值中有 %1 个 NaN、%2 个 Inf；保存为 PNG 后它们会变成黑色</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>mean level %1, brightest %2</source>
        <translation>平均亮度 %1，最亮 %2</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>std %1 around level %2</source>
        <translation>在亮度 %2 附近，标准差 %1</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>mean level %1, std %2</source>
        <translation>平均亮度 %1，标准差 %2</translation>
    </message>
    <message>
        <location line="+10"/>
        <source>%1 first at %2 after step %3 (no probe point held it: probing was off or too coarse)</source>
        <translation>%1 首次出现在第 %3 步之后的 %2（没有探针点记录到它：探针已关闭或粒度太粗）</translation>
    </message>
    <message>
        <location line="+4"/>
        <source>%1 first at %2 (no probe point held it: probing was off or too coarse)</source>
        <translation>%1 首次出现在 %2（没有探针点记录到它：探针已关闭或粒度太粗）</translation>
    </message>
    <message>
        <location line="+3"/>
        <source>; the point before it, %1 (step %2), had |max| %3</source>
        <translation>；它之前的点 %1（第 %2 步）的 |max| 为 %3</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>; the point before it, %1, had |max| %2</source>
        <translation>；它之前的点 %1 的 |max| 为 %2</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>this run already holds non-finite values (first at %1): the magnitudes after it say nothing about fp16</source>
        <translation>本次运行已含有非有限值（首次出现在 %1）：其后的数值幅度不能说明 fp16 的情况</translation>
    </message>
    <message>
        <location line="-19"/>
        <source>%1 first at %2 (block %3, step %4, %5 native)</source>
        <translation>%1 首次出现在 %2（块 %3，第 %4 步，%5 原生运行）</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>%1 first at %2 (block %3, step %4, %5 emulated)</source>
        <translation>%1 首次出现在 %2（块 %3，第 %4 步，%5 模拟运行）</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>%1 first at %2 (block %3, %4 native)</source>
        <translation>%1 首次出现在 %2（块 %3，%4 原生运行）</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>%1 first at %2 (block %3, %4 emulated)</source>
        <translation>%1 首次出现在 %2（块 %3，%4 模拟运行）</translation>
    </message>
    <message>
        <location line="+17"/>
        <source>the first %1 appeared at %2 (step %3), running in fp16 (native): a value passed fp16&apos;s largest finite value, 65504</source>
        <translation>第一个 %1 出现在 %2（第 %3 步），该处以 fp16 原生运行：有值超过了 fp16 的最大有限值 65504，发生溢出</translation>
    </message>
    <message>
        <location line="+4"/>
        <source>the first %1 appeared at %2, running in fp16 (native): a value passed fp16&apos;s largest finite value, 65504</source>
        <translation>第一个 %1 出现在 %2，该处以 fp16 原生运行：有值超过了 fp16 的最大有限值 65504，发生溢出</translation>
    </message>
    <message>
        <location line="+4"/>
        <source>the first %1 appeared at %2 (step %3), running in fp16 (emulated): a value passed fp16&apos;s largest finite value, 65504</source>
        <translation>第一个 %1 出现在 %2（第 %3 步），该处以 fp16 模拟运行：有值超过了 fp16 的最大有限值 65504，发生溢出</translation>
    </message>
    <message>
        <location line="+4"/>
        <source>the first %1 appeared at %2, running in fp16 (emulated): a value passed fp16&apos;s largest finite value, 65504</source>
        <translation>第一个 %1 出现在 %2，该处以 fp16 模拟运行：有值超过了 fp16 的最大有限值 65504，发生溢出</translation>
    </message>
    <message>
        <location line="+4"/>
        <source>this run is clean, but in fp16 %1 would overflow at step %2 (max |x| %3 &gt;= 65520, which rounds to Inf)</source>
        <translation>本次运行没有问题，但在 fp16 下 %1 会在第 %2 步溢出（max |x| %3 &gt;= 65520，舍入后为 Inf）</translation>
    </message>
    <message>
        <location line="+3"/>
        <source>this run is clean, but in fp16 %1 would overflow (max |x| %2 &gt;= 65520, which rounds to Inf)</source>
        <translation>本次运行没有问题，但在 fp16 下 %1 会溢出（max |x| %2 &gt;= 65520，舍入后为 Inf）</translation>
    </message>
    <message>
        <location line="+3"/>
        <source>no non-finite value</source>
        <translation>没有非有限值</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>no non-finite value; the point closest to fp16&apos;s limit keeps %1 bits of headroom</source>
        <translation>没有非有限值；最接近 fp16 上限的点仍有 %1 位余量</translation>
    </message>
    <message>
        <location line="+4"/>
        <source>fp16 is not the problem: the first %1 appeared at %2 (step %3), which ran in %4</source>
        <translation>问题不在 fp16：第一个 %1 出现在 %2（第 %3 步），该处以 %4 运行</translation>
    </message>
    <message>
        <location line="+4"/>
        <source>fp16 is not the problem: the first %1 appeared at %2, which ran in %3</source>
        <translation>问题不在 fp16：第一个 %1 出现在 %2，该处以 %3 运行</translation>
    </message>
    <message>
        <location line="+3"/>
        <source>the point before it, %1, had |max| %2 (%3 bits below 65504)</source>
        <translation>它之前的点 %1 的 |max| 为 %2（低于 65504 %3 位）</translation>
    </message>
    <message>
        <location line="+3"/>
        <source>less than one bit of headroom: another prompt, seed or size may overflow in fp16</source>
        <translation>余量不足一位：换一个提示词、种子或尺寸，fp16 就可能溢出</translation>
    </message>
    <message>
        <location line="+4"/>
        <source>the bisection stopped early (%1): its block set passes but may not be the smallest</source>
        <translation>二分搜索提前停止（%1）：它找到的块集合能通过，但不一定是最小的</translation>
    </message>
    <message>
        <location line="+4"/>
        <source>a bisection with all %1 candidate blocks in %2 still failed: the cause lies outside those blocks</source>
        <translation>将全部 %1 个候选块设为 %2 后二分搜索仍然失败：原因在这些块之外</translation>
    </message>
    <message>
        <location line="+4"/>
        <source>a precision bisection over the %1 %2 blocks finds the fewest to keep out of fp16 (about %3 trial runs or more)</source>
        <translation>对 %2 的 %1 个块做精度二分搜索，可找出最少需要移出 fp16 的块（约 %3 次试运行或更多）</translation>
    </message>
    <message>
        <location line="+4"/>
        <source>its input, %1, was finite (|max| %2): the operation itself produced it (a division by zero, the log or square root of a negative number) or its weights hold non-finite values</source>
        <translation>它的输入 %1 是有限的（|max| %2）：是该运算本身产生的（除以零、对负数取对数或平方根），或者它的权重含有非有限值</translation>
    </message>
    <message>
        <location line="+5"/>
        <source>its input, %1, held no finite value</source>
        <translation>它的输入 %1 没有任何有限值</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>on this CPU fp16 is emulated (compute in fp32, outputs rounded): it saves memory but no time, while bf16 runs natively with fp32&apos;s range</source>
        <translation>在这台 CPU 上 fp16 是模拟的（以 fp32 计算，输出再舍入）：它节省内存但不节省时间，而 bf16 以原生方式运行，并具有 fp32 的数值范围</translation>
    </message>
    <message>
        <location line="+4"/>
        <source>on this CPU fp16 is emulated (compute in fp32, outputs rounded): it saves memory but no time, and bf16 is emulated too: it keeps fp32&apos;s range but saves no time either</source>
        <translation>在这台 CPU 上 fp16 是模拟的（以 fp32 计算，输出再舍入）：它节省内存但不节省时间；bf16 在这里同样是模拟的：它保留 fp32 的数值范围，但同样不节省时间</translation>
    </message>
    <message>
        <location line="+5"/>
        <source>%1 has no fp16 tensor cores: fp16 saves memory only</source>
        <translation>%1 没有 fp16 张量核心：fp16 只能节省显存</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>even the failing plan&apos;s weights, %1, are more than the %2&apos;s %3: the model needs offloading (CPU or block by block) or a smaller format whatever the fix</source>
        <translation>即使是失败方案的权重（%1）也超过了 %2 的 %3：无论采用哪种修复，模型都需要卸载（到 CPU 或逐块加载）或更小的格式</translation>
    </message>
    <message>
        <location line="+5"/>
        <source>the %1 is stored in bf16 and ran in fp16: bf16-trained weights can produce activations above 65504</source>
        <translation>%1 以 bf16 存储、以 fp16 运行：用 bf16 训练的权重可能产生超过 65504 的激活值</translation>
    </message>
    <message>
        <location line="+4"/>
        <source>advice for a GPU of compute capability %1</source>
        <translation>针对计算能力 %1 的 GPU 的建议</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>advice for a GPU of compute capability %1 with %2</source>
        <translation>针对计算能力 %1、显存 %2 的 GPU 的建议</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>advice for a %1 (compute capability %2)</source>
        <translation>针对 %1（计算能力 %2）的建议</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>advice for a %1 (compute capability %2, %3)</source>
        <translation>针对 %1（计算能力 %2，%3）的建议</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>; the run itself was on %1</source>
        <translation>；本次运行本身在 %1 上</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>: ranks, costs and weight totals speak for that GPU</source>
        <translation>：排名、代价和权重总量均针对该 GPU</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>: ranks and costs speak for that GPU (its memory is unknown: give it to check the weights)</source>
        <translation>：排名和代价针对该 GPU（其显存大小未知：请提供以检查权重能否放下）</translation>
    </message>
    <message>
        <location line="+3"/>
        <source>run the %1 in %2</source>
        <translation>以 %2 运行 %1</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>run the %1 and %2 in %3</source>
        <translation>以 %3 运行 %1 和 %2</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>run the %1 and %2 and %3 in %4</source>
        <translation>以 %4 运行 %1、%2 和 %3</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>keep %1 in %2</source>
        <translation>将 %1 保持为 %2</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>check the weights and inputs of %1 for NaN or Inf</source>
        <translation>检查 %1 的权重和输入中是否有 NaN 或 Inf</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>its weights: %1 MB more than fp16</source>
        <translation>其权重：比 fp16 多 %1 MB</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>no extra weight memory</source>
        <translation>无额外权重内存</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>%1 of %2 blocks</source>
        <translation>%2 个块中的 %1 个</translation>
    </message>
    <message>
        <location line="+2"/>
        <source> (predicted from the overflow headroom; not yet verified)</source>
        <translation>（根据溢出余量预测，尚未验证）</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>; about %1 MB more weights than fp16 (if the blocks are of equal size)</source>
        <translation>；权重比 fp16 约多 %1 MB（假设各块大小相同）</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>; no extra weight memory</source>
        <translation>；无额外权重内存</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>; bf16 keeps fp32&apos;s range with 8 bits of precision</source>
        <translation>；bf16 保留 fp32 的数值范围，精度为 8 位</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>; fits: %1 of weights in the %2&apos;s %3</source>
        <translation>；放得下：%1 的权重可装入 %2 的 %3</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>; %1 needs %2 of weights, more than the %3&apos;s %4</source>
        <translation>；%1 需要 %2 的权重，超过了 %3 的 %4</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>no precision change fixes this; `halfscope-cli inspect` counts non-finite weights</source>
        <translation>改变精度无法修复此问题；`halfscope-cli inspect` 可统计非有限的权重</translation>
    </message>
    <message>
        <location line="+4"/>
        <source>; bf16 runs natively on this CPU (oneDNN)</source>
        <translation>；bf16 在这台 CPU 上原生运行（oneDNN）</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>; bf16 is emulated on this CPU at fp32&apos;s speed</source>
        <translation>；bf16 在这台 CPU 上是模拟的，速度与 fp32 相同</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>; bf16 is native on %1</source>
        <translation>；bf16 在 %1 上原生运行</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>; on %1 bf16 runs, slow (no bf16 tensor cores: bf16 is emulated and slow below compute capability 8.0)</source>
        <translation>；在 %1 上 bf16 可以运行，但很慢（没有 bf16 张量核心：计算能力低于 8.0 时 bf16 是模拟的，速度慢）</translation>
    </message>
    <message>
        <location line="+4"/>
        <source>; as fast as fp16 on this CPU (fp16 is emulated in fp32 here)</source>
        <translation>；在这台 CPU 上与 fp16 一样快（这里 fp16 是用 fp32 模拟的）</translation>
    </message>
    <message>
        <location line="+3"/>
        <source>; slower than fp16 on %1 (no fp16 tensor cores)</source>
        <translation>；在 %1 上比 fp16 慢（用不上 fp16 张量核心）</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>; about as fast as fp16 on %1 (it has no fast fp16)</source>
        <translation>；在 %1 上与 fp16 速度相当（它没有快速 fp16）</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>%1 in %2</source>
        <translation>%1 改用 %2</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>the whole %1 in %2</source>
        <translation>整个 %1 改用 %2</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>clamp %1</source>
        <translation>截断 %1</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>clamp the whole %1</source>
        <translation>截断整个 %1</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>scale %1 by 2^-%2</source>
        <translation>将 %1 缩放 2^-%2</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>scale the whole %1 by 2^-%2</source>
        <translation>将整个 %1 缩放 2^-%2</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>fp32 residual stream in %1</source>
        <translation>%1 中使用 fp32 残差流</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>fp32 residual stream in the whole %1</source>
        <translation>整个 %1 中使用 fp32 残差流</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>no extra memory; bf16 runs at full speed there</source>
        <translation>无额外内存；bf16 在该设备上全速运行</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>no extra memory, but bf16 runs slowly there (no bf16 tensor cores below compute capability 8.0)</source>
        <translation>无额外内存，但 bf16 在该设备上运行较慢（计算能力低于 8.0 时没有 bf16 张量核心）</translation>
    </message>
    <message>
        <location line="+4"/>
        <source>+%1 MB of weights (blocks of equal size assumed)</source>
        <translation>权重增加 %1 MB（假设各块大小相同）</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>; these blocks lose fp16 tensor cores</source>
        <translation>；这些块用不上 fp16 张量核心</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>no memory; one clip per output, negligible time</source>
        <translation>无额外内存；每个输出截断一次，耗时可忽略</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>no memory; two exact multiplications by 2^%1 per value, negligible time</source>
        <translation>无额外内存；每个值做两次乘以 2^%1 的精确乘法，耗时可忽略</translation>
    </message>
    <message>
        <location line="+3"/>
        <source>no weight memory; the residual stream&apos;s activations take twice the memory, a cast per sub-layer</source>
        <translation>无额外权重内存；残差流的激活值占用两倍内存，每个子层一次类型转换</translation>
    </message>
    <message>
        <location line="+4"/>
        <source>; the model&apos;s weights: %1 GB, within its %2 GB</source>
        <translation>；模型权重：%1 GB，在其 %2 GB 以内</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>; the model&apos;s weights: %1 GB, more than its %2 GB</source>
        <translation>；模型权重：%1 GB，超过其 %2 GB</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>no remedy was tried: no failing block was found</source>
        <translation>没有尝试任何补救方案：未找到失败的块</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>none of the %1 remedies tried makes the run right (finite and within tolerance of %2)</source>
        <translation>尝试的 %1 个补救方案都不能让运行恢复正常（结果有限且与 %2 的差异在容差内）</translation>
    </message>
    <message>
        <location line="+4"/>
        <source> fixes the run with the fewest changes: image difference %1 to the reference</source>
        <translation> 以最少的改动修复了运行：与参考图像的差异为 %1</translation>
    </message>
    <message>
        <location line="+3"/>
        <source> (PSNR %1 dB)</source>
        <translation>（PSNR %1 dB）</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>; %1 of %2 remedies pass</source>
        <translation>；%2 个补救方案中有 %1 个通过</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>the trial did not run: %1</source>
        <translation>该试验未能运行：%1</translation>
    </message>
    <message>
        <location line="+2"/>
        <source> (verdict </source>
        <translation>（判定：</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>)</source>
        <translation>）</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>all finite but the image is </source>
        <translation>全部有限，但图像判定为</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>difference %1 to the reference is above the tolerance %2</source>
        <translation>与参考图像的差异 %1 超过容差 %2</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>passes: all finite</source>
        <translation>通过：全部有限</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>, verdict </source>
        <translation>，判定：</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>, difference %1 &lt;= %2</source>
        <translation>，差异 %1 &lt;= %2</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>keeping %1 of %2 blocks in %3 (%4) fixes the run; found in %5 trials</source>
        <translation>将 %2 个块中的 %1 个保持为 %3（%4）即可修复运行；用 %5 次试验找到</translation>
    </message>
    <message>
        <location line="+3"/>
        <source>keeping %1 of %2 blocks in %3 (%4) fixes the run; found in 1 trial</source>
        <translation>将 %2 个块中的 %1 个保持为 %3（%4）即可修复运行；用 1 次试验找到</translation>
    </message>
    <message>
        <location line="+3"/>
        <source>even with all %1 candidate blocks in %2 the run fails (</source>
        <translation>即使全部 %1 个候选块都使用 %2，运行仍然失败（</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>): the cause lies outside these blocks</source>
        <translation>）：原因在这些块之外</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>cancelled after %1 trials</source>
        <translation>%1 次试验后已取消</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>cancelled after 1 trial</source>
        <translation>1 次试验后已取消</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>stopped at the limit after %1 trials</source>
        <translation>%1 次试验后达到上限而停止</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>stopped at the limit after 1 trial</source>
        <translation>1 次试验后达到上限而停止</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>; the smallest passing set so far keeps %1 of %2 blocks in %3 (%4) and may not be minimal</source>
        <translation>；目前最小的通过集合将 %2 个块中的 %1 个保持为 %3（%4），可能不是最小的</translation>
    </message>
    <message>
        <location line="+3"/>
        <source> before any plan passed</source>
        <translation>，此前没有任何方案通过</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>no candidate blocks to bisect</source>
        <translation>没有可二分的候选块</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>the plan %1 does not fail: no NaN or Inf and the image is </source>
        <translation>方案 %1 不会失败：没有 NaN 或 Inf，图像判定为</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>no component runs in fp16 under this plan, so no block can be moved out of fp16; the failure does not come from fp16 overflow</source>
        <translation>此方案下没有组件以 fp16 运行，因此没有块可以移出 fp16；失败并非来自 fp16 溢出</translation>
    </message>
    <message>
        <location line="+4"/>
        <source>no bisection: the remedies were tried without format changes</source>
        <translation>未进行二分：所试的补救措施不改变格式</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>bf16 emulated (fp32 compute, weights and every op output rounded to bf16, as a GPU stores them)</source>
        <translation>bf16 为模拟（以 fp32 计算，权重和每个运算的输出都舍入为 bf16，与 GPU 的存储方式相同）</translation>
    </message>
    <message>
        <location line="+3"/>
        <source>bf16 native (oneDNN, bf16 instructions)</source>
        <translation>bf16 为原生（oneDNN，使用 bf16 指令）</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>bf16 native (oneDNN without bf16 instructions: about 13x slower than fp32, and it accumulates in bf16 in places)</source>
        <translation>bf16 为原生（oneDNN，无 bf16 指令：比 fp32 慢约 13 倍，且部分地方以 bf16 累加）</translation>
    </message>
    <message>
        <location line="+3"/>
        <source>; mode emulated</source>
        <translation>；模式：模拟</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>; mode native</source>
        <translation>；模式：原生</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>; mode auto</source>
        <translation>；模式：自动</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>all components loaded whole: %1 in this plan; budget %2 available</source>
        <translation>所有组件整体加载：此方案下 %1；预算：可用 %2</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>all components loaded whole: %1 in this plan; budget %2 (HALFSCOPE_MEMORY_LIMIT_MB)</source>
        <translation>所有组件整体加载：此方案下 %1；预算：%2（HALFSCOPE_MEMORY_LIMIT_MB）</translation>
    </message>
    <message>
        <location line="+4"/>
        <source>all components loaded whole: %1 in this plan; budget %2 (GPU memory cap)</source>
        <translation>所有组件整体加载：此方案下 %1；预算：%2（GPU 显存上限）</translation>
    </message>
    <message>
        <location line="+3"/>
        <source>all components loaded whole: %1 in this plan; budget unknown</source>
        <translation>所有组件整体加载：此方案下 %1；预算未知</translation>
    </message>
    <message>
        <location line="+3"/>
        <source>%1 streamed block by block: %2 stored, %3 per block in %4</source>
        <translation>%1 逐块流式加载：存储 %2，每块 %3（%4）</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>%1 streamed block by block: %2 stored, %3 per block in fp32 (emulated %4)</source>
        <translation>%1 逐块流式加载：存储 %2，每块 %3（fp32，模拟 %4）</translation>
    </message>
    <message>
        <location line="+3"/>
        <source>, </source>
        <translation>，</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>; %1 loaded whole (%2)</source>
        <translation>；%1 整体加载（%2）</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>; budget %1 available</source>
        <translation>；预算：可用 %1</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>; budget %1 (HALFSCOPE_MEMORY_LIMIT_MB)</source>
        <translation>；预算：%1（HALFSCOPE_MEMORY_LIMIT_MB）</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>; budget %1 (GPU memory cap)</source>
        <translation>；预算：%1（GPU 显存上限）</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>; text encoders freed after each prompt is encoded</source>
        <translation>；每个提示词编码后即释放文本编码器</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>fp16 check from weights (%1 ms): </source>
        <translation>基于权重的 fp16 检查（%1 毫秒）：</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>fp16 check from weights: skipped for %1 MiB of weights (halfscope-cli inspect runs it)</source>
        <translation>基于权重的 fp16 检查：权重有 %1 MiB，已跳过（可用 halfscope-cli inspect 运行）</translation>
    </message>
    <message>
        <location line="+4"/>
        <source>fp16 check from weights: not available (%1)</source>
        <translation>基于权重的 fp16 检查：不可用（%1）</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>; </source>
        <translation>；</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>%1 fp16 safe</source>
        <translation>%1 fp16 安全</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>%1 at risk</source>
        <translation>%1 有风险</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>%1 will overflow</source>
        <translation>%1 将溢出</translation>
    </message>
    <message>
        <location line="+1"/>
        <source> (%1, clean-run peak %2)</source>
        <translation>（%1，正常运行峰值 %2）</translation>
    </message>
    <message>
        <location line="+1"/>
        <source> (%1, stored weight %2)</source>
        <translation>（%1，存储的权重 %2）</translation>
    </message>
    <message>
        <location line="+1"/>
        <source> (%1, estimated peak %2)</source>
        <translation>（%1，估计峰值 %2）</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>no weights</source>
        <translation>没有权重</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Summary</source>
        <translation>摘要</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Environment</source>
        <translation>环境</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Model and components</source>
        <translation>模型与组件</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Configuration and precision plans</source>
        <translation>配置与精度方案</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Step curves</source>
        <translation>逐步曲线</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Previews</source>
        <translation>预览</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Layer heatmap</source>
        <translation>层热力图</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>First failure</source>
        <translation>首次失败</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Overflow headroom to fp16</source>
        <translation>距 fp16 溢出的余量</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Latent divergence from %1</source>
        <translation>相对 %1 的潜变量偏离</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Precision bisection</source>
        <translation>精度二分搜索</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Remedies, ranked</source>
        <translation>补救方案（已排序）</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Advice</source>
        <translation>建议</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Verdict</source>
        <translation>结论</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>First non-finite value:</source>
        <translation>首个非有限值：</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Diagnosis:</source>
        <translation>诊断：</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Suggested fix:</source>
        <translation>建议的修复：</translation>
    </message>
    <message>
        <location filename="../widgets/controls/report_phrases.cpp" line="-8"/>
        <source>text</source>
        <translation>文本</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>decode</source>
        <translation>解码</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>step %1</source>
        <translation>第 %1 步</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>%1 bits to 65504</source>
        <translation>距 65504 还有 %1 位</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>not in fp16</source>
        <translation>未以 fp16 运行</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>overflows in fp16</source>
        <translation>在 fp16 中溢出</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>saturates (rounds to 65504)</source>
        <translation>饱和（舍入为 65504）</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>under 1 bit</source>
        <translation>不足 1 位</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>point</source>
        <translation>探针点</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>block</source>
        <translation>块</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>peak step</source>
        <translation>峰值步</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>bits to 65504</source>
        <translation>距 65504 的位数</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>(%1 +Inf, %2 -Inf, %3 NaN of %4 values)</source>
        <translation>（%4 个值中有 %1 个 +Inf、%2 个 -Inf、%3 个 NaN）</translation>
    </message>
    <message>
        <location line="+178"/>
        <source>cannot_fix</source>
        <translation>无法修复</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>iteration_limit</source>
        <translation>达到迭代上限</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>no_candidates</source>
        <translation>没有候选块</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>from_start</source>
        <translation>从开头</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>from_end</source>
        <translation>从末尾</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>latents</source>
        <translation>潜变量</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>image</source>
        <translation>图像</translation>
    </message>
    <message>
        <location line="-186"/>
        <source>(step %1)</source>
        <translation>（第 %1 步）</translation>
    </message>
    <message>
        <location line="+176"/>
        <source>fixed</source>
        <translation>已修复</translation>
    </message>
    <message>
        <location line="+3"/>
        <source>cancelled</source>
        <translation>已取消</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>verify</source>
        <translation>验证</translation>
    </message>
    <message>
        <location line="+3"/>
        <source>shrink</source>
        <translation>收缩</translation>
    </message>
    <message>
        <location line="-183"/>
        <source>none</source>
        <translation>无</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>(verified)</source>
        <translation>（已验证）</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>(tried on the same prompt and seed: %1)</source>
        <translation>（已用相同的提示词和种子试过：%1）</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>(not tried)</source>
        <translation>（未试过）</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>pass</source>
        <translation>通过</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>fail</source>
        <translation>失败</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Each row is a probe point in call order, each column a sampling step (“text”: text encoding, “decode”: VAE). The colour is the point&apos;s max |x| relative to fp16&apos;s limit 65504, in bits of headroom. Hover a cell for its numbers.</source>
        <translation>每行是一个探针点（按调用顺序），每列是一个采样步（“文本”：文本编码，“解码”：VAE）。颜色表示该点的 max |x| 相对 fp16 上限 65504 的余量位数。将鼠标悬停在单元格上可查看其数值。</translation>
    </message>
    <message>
        <location line="+5"/>
        <source>No probe points recorded (probe level %1).</source>
        <translation>没有记录任何探针点（探针级别 %1）。</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>%1 layer heatmap</source>
        <translation>%1 层热力图</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>heatmap legend</source>
        <translation>热力图图例</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>≤16 bits below</source>
        <translation>余量 ≥16 位</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>over 65504</source>
        <translation>超过 65504</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>first NaN/Inf</source>
        <translation>首个 NaN/Inf</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>first non-finite value</source>
        <translation>首个非有限值</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>%1 blocks (too many points for one row each: a block&apos;s row shows its largest point).</source>
        <translation>%1 个块（探针点太多，无法每点一行：每个块的行显示其中最大的点）。</translation>
    </message>
    <message>
        <location line="+3"/>
        <source>Not shown: %1 probe records at steps this run does not have, %2 rows past the first %3 and %4 steps past the first %5.</source>
        <translation>未显示：%1 条位于本次运行没有的步上的探针记录、前 %3 行之后的 %2 行，以及前 %5 步之后的 %4 步。</translation>
    </message>
    <message>
        <location line="+3"/>
        <source>No NaN or Inf in this run.</source>
        <translation>本次运行中没有 NaN 或 Inf。</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>kind</source>
        <translation>类型</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>component</source>
        <translation>组件</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>step</source>
        <translation>步</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>outside the loop</source>
        <translation>在循环之外</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>ran in</source>
        <translation>运行格式</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>, %1 point</source>
        <translation>，%1 级探针点</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>point before it</source>
        <translation>它之前的点</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>How it spread</source>
        <translation>扩散过程</translation>
    </message>
    <message>
        <location filename="../widgets/controls/engine_messages.cpp" line="-104"/>
        <location filename="../widgets/controls/report_phrases.cpp" line="+1"/>
        <source>%1 non-finite values</source>
        <translation>%1 个非有限值</translation>
    </message>
    <message>
        <location filename="../widgets/controls/report_phrases.cpp" line="+1"/>
        <source>It did not reach the image.</source>
        <translation>它没有传到图像。</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Bits of headroom = log2(65504 / max|x|) over the whole run. A value overflows to Inf in fp16 when |x| ≥ 65520 (round to nearest even); between 65504 and 65520 it rounds down to 65504.</source>
        <translation>余量位数 = log2(65504 / max|x|)，按整个运行计算。在 fp16 中，|x| ≥ 65520 时数值溢出为 Inf（就近舍入到偶数）；介于 65504 与 65520 之间时向下舍入为 65504。</translation>
    </message>
    <message>
        <location line="+4"/>
        <source>No probe points recorded.</source>
        <translation>没有记录任何探针点。</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Caution:</source>
        <translation>注意：</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Predicted first fp16 failure:</source>
        <translation>预测的首个 fp16 失败：</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>%1 (block %2, step %3), max |x| %4.</source>
        <translation>%1（块 %2，第 %3 步），max |x| 为 %4。</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>%1 (block %2), max |x| %3.</source>
        <translation>%1（块 %2），max |x| 为 %3。</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>No point reaches 65520 (fp16&apos;s largest finite value, 65504; values from 65520 round to Inf): none is predicted to overflow in fp16. Least headroom: %1 bits.</source>
        <translation>没有点达到 65520（fp16 的最大有限值为 65504；从 65520 起的值舍入为 Inf）：预测在 fp16 中都不会溢出。最小余量：%1 位。</translation>
    </message>
    <message>
        <location line="+4"/>
        <source>This run already failed: its first non-finite value is at %1 (fp16&apos;s largest finite value, 65504; values from 65520 round to Inf). The headroom figures are over its finite values; least headroom: %2 bits.</source>
        <translation>本次运行已经失败：首个非有限值出现在 %1（fp16 的最大有限值为 65504；从 65520 起的值舍入为 Inf）。余量数据只针对其有限值；最小余量：%2 位。</translation>
    </message>
    <message>
        <location line="+4"/>
        <source>%1 point predicted to overflow</source>
        <translation>预测有 %1 个点溢出</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>%1 points predicted to overflow</source>
        <translation>预测有 %1 个点溢出</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>(call order):</source>
        <translation>（按调用顺序）：</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Closest to the limit</source>
        <translation>最接近上限的点</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>all %1 points in call order</source>
        <translation>全部 %1 个点（按调用顺序）</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Relative L2 distance ||b − a|| / ||a|| of each step&apos;s latents from the first run&apos;s. A step where either side holds NaN/Inf counts as infinite (triangle).</source>
        <translation>每一步的潜变量相对第一个运行的相对 L2 距离 ||b − a|| / ||a||。任一方含有 NaN/Inf 的步记为无穷大（三角形）。</translation>
    </message>
    <message>
        <location line="+4"/>
        <source>relative L2 distance of the latents (log scale)</source>
        <translation>潜变量的相对 L2 距离（对数刻度）</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>relative L2</source>
        <translation>相对 L2</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>note</source>
        <translation>备注</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>NaN/Inf in the latents</source>
        <translation>潜变量中有 NaN/Inf</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>relative L2 distance of the latents</source>
        <translation>潜变量的相对 L2 距离</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>The runs did not keep their latents (RunConfig::keepLatents), so there is nothing to compare step by step.</source>
        <translation>这些运行没有保留潜变量（RunConfig::keepLatents），因此无法逐步比较。</translation>
    </message>
    <message>
        <location line="+3"/>
        <source>per-step values</source>
        <translation>逐步数值</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>No bisection was run for this report.</source>
        <translation>本报告没有运行二分搜索。</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>safe format</source>
        <translation>安全格式</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>tolerance</source>
        <translation>容差</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>(image difference)</source>
        <translation>（图像差异）</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>candidates</source>
        <translation>候选块</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>kept in %1</source>
        <translation>保持为 %1 的块</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Resulting plan</source>
        <translation>得到的方案</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Trials</source>
        <translation>试运行</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>phase</source>
        <translation>阶段</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>blocks in %1</source>
        <translation>%1 的块</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>result</source>
        <translation>结果</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>verdict</source>
        <translation>结论</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>difference</source>
        <translation>差异</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>s</source>
        <translation>秒</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>why</source>
        <translation>原因</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>No advice was computed for this report.</source>
        <translation>本报告没有计算建议。</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Target device:</source>
        <translation>目标设备：</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Device:</source>
        <translation>设备：</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>(the GPU the model will run on; the run itself was on the device under Environment)</source>
        <translation>（模型将要运行的 GPU；运行本身在“环境”中列出的设备上进行）</translation>
    </message>
    <message>
        <location line="+3"/>
        <source>Notes</source>
        <translation>说明</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>failing blocks</source>
        <translation>失败的块</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>none found</source>
        <translation>未找到</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>reference</source>
        <translation>参考</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>costs for</source>
        <translation>代价针对</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Rows that pass come first, then fewer plan changes, then a smaller image change, then the cheaper one on the target. The time per step was measured on the machine that made this report.</source>
        <translation>通过的行排在前面，其次是方案改动较少的、图像变化较小的，再其次是在目标设备上代价较低的。每步耗时是在生成本报告的机器上测得的。</translation>
    </message>
    <message>
        <location line="+4"/>
        <source>remedy</source>
        <translation>补救方案</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>changes</source>
        <translation>改动数</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>s/step here</source>
        <translation>本机每步秒数</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>cost on the target</source>
        <translation>目标设备上的代价</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>plan</source>
        <translation>方案</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>run %1</source>
        <translation>运行 %1</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>%1 native</source>
        <translation>%1 原生运行</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>%1 emulated</source>
        <translation>%1 模拟运行</translation>
    </message>
    <message>
        <location line="+64"/>
        <source>off</source>
        <translation>关闭</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>module</source>
        <translation>模块</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>layer</source>
        <translation>层</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>op</source>
        <translation>算子</translation>
    </message>
    <message>
        <location line="-66"/>
        <source>(none: stored dtypes)</source>
        <translation>（无：使用存储精度）</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>decoded (NaN magenta, Inf cyan)</source>
        <translation>解码结果（NaN 为品红色，Inf 为青色）</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>as saved (NaN as 0)</source>
        <translation>保存的图像（NaN 记为 0）</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Spread:</source>
        <translation>扩散：</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>No NaN or Inf anywhere in the recorded run.</source>
        <translation>记录的运行中任何地方都没有 NaN 或 Inf。</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Closest point to fp16&apos;s limit: %1 bits of headroom.</source>
        <translation>最接近 fp16 上限的点：余量 %1 位。</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Its largest value is %1 bits above fp16&apos;s limit.</source>
        <translation>其最大值超出 fp16 上限 %1 位。</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>In fp16, %1 would overflow at step %2.</source>
        <translation>在 fp16 中，%1 会在第 %2 步溢出。</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>In fp16, %1 would overflow.</source>
        <translation>在 fp16 中，%1 会溢出。</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>The run was cancelled before it finished.</source>
        <translation>运行在完成前被取消。</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Error:</source>
        <translation>错误：</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>%1 steps, %2 probe records, %3 s</source>
        <translation>%1 步，%2 条探针记录，%3 秒</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>; estimated after its second step: %1 s</source>
        <translation>；第二步之后的估计：%1 秒</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>, %1 GB of memory (weights %2 GB + activations %3 GB)</source>
        <translation>，内存 %1 GB（权重 %2 GB + 激活 %3 GB）</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>, %1 GB of memory (weights only: activations not measured on this device)</source>
        <translation>，内存 %1 GB（仅权重：此设备上未测量激活）</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>Advice for:</source>
        <translation>建议针对：</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Device</source>
        <translation>设备</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Compute capability</source>
        <translation>计算能力</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>bf16 on the CPU</source>
        <translation>CPU 上的 bf16</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Threads</source>
        <translation>线程数</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Operating system</source>
        <translation>操作系统</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Report created</source>
        <translation>报告创建时间</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>class</source>
        <translation>类</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>stored</source>
        <translation>存储格式</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>parameters</source>
        <translation>参数量</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>runs in</source>
        <translation>运行格式</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Prompt</source>
        <translation>提示词</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Negative prompt</source>
        <translation>负面提示词</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Seed</source>
        <translation>种子</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Steps</source>
        <translation>步数</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Guidance</source>
        <translation>引导系数</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Size</source>
        <translation>大小</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Scheduler shift</source>
        <translation>调度器偏移量</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>default</source>
        <translation>默认</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Probe level</source>
        <translation>探针级别</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Plan (user rules)</source>
        <translation>方案（用户规则）</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Effective plan (stored dtypes + rules, last match wins)</source>
        <translation>生效的方案（存储精度 + 规则，最后匹配的规则优先）</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>latent |max| per step (log scale)</source>
        <translation>每步潜变量 |max|（对数刻度）</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Triangles above the plot mark steps whose latents hold NaN or Inf (no line: no finite value left). The dashed red line is fp16&apos;s largest finite value.</source>
        <translation>图上方的三角形标出潜变量含有 NaN 或 Inf 的步（没有线：已没有有限值）。红色虚线是 fp16 的最大有限值。</translation>
    </message>
    <message>
        <location line="+4"/>
        <source>latent min / max / mean ± std</source>
        <translation>潜变量 min / max / 均值 ± std</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>mean</source>
        <translation>均值</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>per-step table</source>
        <translation>逐步表格</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>velocity |max|</source>
        <translation>速度 |max|</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>The denoised estimate after each step (latent-to-RGB projection, or a full VAE decode where marked). NaN pixels are magenta and Inf cyan, never black.</source>
        <translation>每一步之后的去噪估计（潜变量到 RGB 的投影，标注处为完整的 VAE 解码）。NaN 像素为品红色，Inf 为青色，绝不会是黑色。</translation>
    </message>
    <message>
        <location line="+4"/>
        <source>final</source>
        <translation>最终</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>No previews recorded.</source>
        <translation>没有记录预览。</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>%1 run</source>
        <translation>%1 个运行</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>%1 runs side by side</source>
        <translation>%1 个运行并排</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>created %1</source>
        <translation>创建于 %1</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>This report holds no run.</source>
        <translation>本报告不含任何运行。</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Generated by Halfscope %1. This file is self-contained: it loads nothing from anywhere.</source>
        <translation>由 Halfscope %1 生成。本文件是自包含的：不从任何地方加载任何内容。</translation>
    </message>
</context>
<context>
    <name>FailureBanner</name>
    <message>
        <location filename="../widgets/panels/failure_banner.cpp" line="+11"/>
        <source>Show</source>
        <translation>查看</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Find a fix</source>
        <translation>查找修复</translation>
    </message>
    <message>
        <location line="+8"/>
        <source>Select this point in the layer heatmap, its row in view</source>
        <translation>在层热图中选中此点，并让它所在的行可见</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>Search the cheapest precision plan that fixes this run</source>
        <translation>搜索能修复此次运行、开销最低的精度方案</translation>
    </message>
    <message>
        <location line="+20"/>
        <source>&lt;b style=&apos;color:#c00000&apos;&gt;The run failed.&lt;/b&gt; First failing point: &lt;b&gt;%1&lt;/b&gt; at %2: %3, in the %4.</source>
        <extracomment>The Run tab&apos;s failure banner: %1 the failing point, %2 where (step 0, VAE decode), %3 the value that appeared (+Inf and its count), %4 the component.</extracomment>
        <translation>&lt;b style=&apos;color:#c00000&apos;&gt;运行失败。&lt;/b&gt;首个出错点：&lt;b&gt;%1&lt;/b&gt;，%2：%3，位于 %4。</translation>
    </message>
    <message>
        <location line="+10"/>
        <source>&lt;b style=&apos;color:#c00000&apos;&gt;The run failed:&lt;/b&gt; %1. No NaN or Inf appeared on the way.</source>
        <translation>&lt;b style=&apos;color:#c00000&apos;&gt;运行失败：&lt;/b&gt;%1。过程中没有出现 NaN 或 Inf。</translation>
    </message>
    <message>
        <location line="-18"/>
        <source>step %1</source>
        <translation>第 %1 步</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>VAE decode</source>
        <translation>VAE 解码</translation>
    </message>
    <message>
        <location line="+0"/>
        <source>text encoding</source>
        <translation>文本编码</translation>
    </message>
</context>
<context>
    <name>FileSet</name>
    <message>
        <location filename="../app/gui/file_set.cpp" line="+22"/>
        <source>VAE</source>
        <translation>VAE</translation>
    </message>
    <message>
        <location line="+0"/>
        <source>first text encoder</source>
        <translation>第一个文本编码器</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>second text encoder</source>
        <translation>第二个文本编码器</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>third text encoder</source>
        <translation>第三个文本编码器</translation>
    </message>
    <message>
        <location line="+24"/>
        <source>No files were given.</source>
        <translation>没有给出任何文件。</translation>
    </message>
    <message>
        <location line="+7"/>
        <source>%1 is not a file.</source>
        <translation>%1 不是文件。</translation>
    </message>
    <message>
        <location line="+14"/>
        <source>%1 is not a model file Halfscope can open: %2</source>
        <translation>%1 不是 Halfscope 能打开的模型文件：%2</translation>
    </message>
    <message>
        <location line="+11"/>
        <source>%1 and %2 both hold a denoiser (the model itself): open one model at a time, with its VAE and text encoders.</source>
        <translation>%1 和 %2 都包含去噪器（即模型本身）：请一次只打开一个模型，连同它的 VAE 和文本编码器。</translation>
    </message>
    <message>
        <location line="+12"/>
        <source>None of the files holds a denoiser (a transformer or UNet, such as flux1-dev.safetensors), so there is no model to open. The files hold %1. Add the model file to the set.</source>
        <translation>这些文件都不包含去噪器（transformer 或 UNet，例如 flux1-dev.safetensors），因此没有可打开的模型。这些文件包含：%1。请把模型文件加入这组文件。</translation>
    </message>
    <message>
        <location line="+16"/>
        <source>%1 and %2 both hold the %3: pick one of them.</source>
        <translation>%1 和 %2 都包含%3：请只选其中一个。</translation>
    </message>
    <message>
        <location line="+9"/>
        <source>%1 holds %2, which is not a part a model file set takes (a VAE or a text encoder).</source>
        <translation>%1 包含 %2，这不是模型文件组能接受的部分（VAE 或文本编码器）。</translation>
    </message>
</context>
<context>
    <name>FixPanel</name>
    <message>
        <location filename="../widgets/panels/fix_panel.cpp" line="+34"/>
        <source>format</source>
        <translation>格式</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>clamp</source>
        <translation>截断</translation>
    </message>
    <message>
        <location line="+4"/>
        <source>scale</source>
        <translation>缩放</translation>
    </message>
    <message>
        <location line="+4"/>
        <source>fp32 residual</source>
        <translation>fp32 残差</translation>
    </message>
    <message>
        <location line="-9"/>
        <source>The failing blocks in bf16, and in fp32 (bisection first)</source>
        <translation>失败的块改用 bf16 和 fp32（先做二分搜索）</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>PATH=clamp: outputs and residual sums clipped to fp16&apos;s range, as diffusers does</source>
        <translation>PATH=clamp：输出和残差和截断到 fp16 的范围内，与 diffusers 的做法相同</translation>
    </message>
    <message>
        <location line="+4"/>
        <source>PATH=scale:K: activations scaled by 2^-K inside the module, K from the reference run&apos;s largest value there</source>
        <translation>PATH=scale:K：模块内的激活值乘以 2^-K，K 由参考运行在该处的最大值决定</translation>
    </message>
    <message>
        <location line="+4"/>
        <source>PATH=fp32-residual: the residual stream summed in fp32, as ComfyUI does for Cosmos and Anima</source>
        <translation>PATH=fp32-residual：残差流以 fp32 累加，与 ComfyUI 对 Cosmos 和 Anima 的做法相同</translation>
    </message>
    <message>
        <location line="+16"/>
        <source>bf16</source>
        <translation>bf16</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>fp32</source>
        <translation>fp32</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>bf16 has fp32&apos;s range at half the memory; fp32 also its precision</source>
        <translation>bf16：数值范围与 fp32 相同，内存只占一半；fp32：还具备完整的 fp32 精度</translation>
    </message>
    <message>
        <location line="+4"/>
        <source>Sampling steps of each trial run: fewer steps make the search faster</source>
        <translation>每次试验运行的采样步数：步数越少，搜索越快</translation>
    </message>
    <message>
        <location line="+9"/>
        <source>Largest mean pixel difference to the reference run that passes</source>
        <translation>与参考运行相比，仍判定为通过的最大平均像素差异</translation>
    </message>
    <message>
        <location line="+15"/>
        <source>Remedies to try</source>
        <translation>要尝试的补救方案</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Blocks leave fp16 for</source>
        <translation>移出 fp16 的块改用</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Steps per trial</source>
        <translation>每次试验步数</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Most trials</source>
        <translation>最多试验次数</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Tolerance</source>
        <translation>容差</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>Find minimal fix</source>
        <translation>查找最小修复</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>Bisect over the blocks of the fp16 components, as Polygraphy does, for the fewest that must run in the safe format</source>
        <translation>像 Polygraphy 一样对 fp16 组件中的块进行二分搜索，找出必须以安全格式运行的最少的块</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>Apply plan</source>
        <translation>应用精度方案</translation>
    </message>
    <message>
        <location line="+9"/>
        <location line="+6"/>
        <source>#</source>
        <translation>#</translation>
    </message>
    <message>
        <location line="-6"/>
        <source>Phase</source>
        <translation>阶段</translation>
    </message>
    <message>
        <location line="+0"/>
        <source>Outcome</source>
        <translation>结果</translation>
    </message>
    <message>
        <location line="+0"/>
        <source>Blocks kept safe</source>
        <translation>保持安全格式的块</translation>
    </message>
    <message>
        <location line="+6"/>
        <source>Remedy</source>
        <translation>补救方案</translation>
    </message>
    <message>
        <location line="+0"/>
        <source>Result</source>
        <translation>结果</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Changes</source>
        <translation>改动数</translation>
    </message>
    <message>
        <location line="+0"/>
        <source>Image difference</source>
        <translation>图像差异</translation>
    </message>
    <message>
        <location line="+0"/>
        <source>PSNR dB</source>
        <translation>PSNR dB</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>s/step here</source>
        <translation>本机 秒/步</translation>
    </message>
    <message>
        <location line="+0"/>
        <source>Cost on the target</source>
        <translation>目标设备上的代价</translation>
    </message>
    <message>
        <location line="+13"/>
        <source>Apply selected</source>
        <translation>应用所选</translation>
    </message>
    <message>
        <location line="+3"/>
        <source>Compare top rows</source>
        <translation>比较前几行</translation>
    </message>
    <message>
        <location line="+3"/>
        <source>Run the best passing plans (2 or 3) side by side in the compare tab</source>
        <translation>在比较标签页中并排运行通过的最佳方案（2 或 3 个）</translation>
    </message>
    <message>
        <location line="+13"/>
        <source>Ranked remedies</source>
        <translation>补救方案排名</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Bisection trials</source>
        <translation>二分搜索试运行</translation>
    </message>
    <message>
        <location line="+4"/>
        <source>Run a failing plan, then find the cheapest plan that fixes it.</source>
        <translation>先运行一个失败的精度方案，再查找能修复它的代价最低的方案。</translation>
    </message>
    <message>
        <location line="+62"/>
        <location line="+77"/>
        <source>Searching...</source>
        <translation>正在搜索…</translation>
    </message>
    <message>
        <location line="-61"/>
        <location line="+71"/>
        <source>pass</source>
        <translation>通过</translation>
    </message>
    <message>
        <location line="-71"/>
        <location line="+71"/>
        <source>fail</source>
        <translation>失败</translation>
    </message>
    <message>
        <location line="-65"/>
        <source>, difference %1</source>
        <translation>，差异 %1</translation>
    </message>
    <message>
        <location line="+20"/>
        <source>Plan: %1</source>
        <translation>精度方案：%1</translation>
    </message>
    <message>
        <location line="+39"/>
        <source>Costs for: %1</source>
        <translation>代价针对：%1</translation>
    </message>
    <message>
        <location line="+31"/>
        <source>Apply</source>
        <translation>应用</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Set the precision plan to %1</source>
        <translation>将精度方案设为 %1</translation>
    </message>
</context>
<context>
    <name>GuiAdvice</name>
    <message>
        <location filename="../app/gui/gui_advice.cpp" line="+72"/>
        <source>In the studio, choose the missing file with the button below, or open the model file and its parts together: File &gt; Open model files… takes the model, its VAE and its text encoders at once, and File &gt; Model library… picks a whole set.</source>
        <translation>在工作室中，可用下方的按钮选择缺少的文件，或将模型文件及其各部分一起打开：“文件 &gt; 打开模型文件…”可同时选取模型、它的 VAE 和文本编码器，“文件 &gt; 模型库…”可选取整套文件。</translation>
    </message>
    <message>
        <location line="+6"/>
        <source>In the studio, choose the tokenizer&apos;s folder with the button below, or put its folder, named %1, beside the model file or beside its text encoder&apos;s file and open the model again. Where Halfscope bundles the tokenizer (CLIP-L), it is used when none is there. File &gt; Model library… names what a set lacks before it opens.</source>
        <extracomment>%1: the folder names a tokenizer is looked for under (&quot;tokenizer&quot;, &quot;tokenizer_2&quot;).</extracomment>
        <translation>在工作室中，可用下方的按钮选择分词器的文件夹，或把名为 %1 的分词器文件夹放在模型文件或其文本编码器文件旁边，然后重新打开模型。对于 Halfscope 自带的分词器（CLIP-L），找不到时会使用自带的。“文件 &gt; 模型库…”会在打开之前列出一套文件还缺少什么。</translation>
    </message>
    <message>
        <location line="+7"/>
        <source> or </source>
        <translation> 或 </translation>
    </message>
</context>
<context>
    <name>HistoryBrowser</name>
    <message>
        <location filename="../widgets/history/history_browser.cpp" line="+26"/>
        <source>Delete &quot;%1&quot; and its images? This cannot be undone.</source>
        <translation>删除“%1”及其图像？此操作无法撤销。</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>Delete %1 runs (%2) and their images? This cannot be undone.</source>
        <translation>删除 %1 次运行（%2）及其图像？此操作无法撤销。</translation>
    </message>
    <message>
        <location line="+3"/>
        <source>Delete runs</source>
        <translation>删除运行</translation>
    </message>
    <message>
        <location line="+11"/>
        <source>Open</source>
        <translation>打开</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Rename</source>
        <translation>重命名</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Delete…</source>
        <translation>删除…</translation>
    </message>
    <message>
        <location line="+1"/>
        <location line="+215"/>
        <source>Compare</source>
        <translation>比较</translation>
    </message>
    <message>
        <location line="-214"/>
        <source>Refresh</source>
        <translation>刷新</translation>
    </message>
    <message>
        <location line="+32"/>
        <source>Show the checked runs side by side (2 to %1)</source>
        <translation>并排显示勾选的运行（2 到 %1 个）</translation>
    </message>
    <message>
        <location line="+3"/>
        <source>Show the runs of one model only</source>
        <translation>只显示某一个模型的运行</translation>
    </message>
    <message>
        <location line="+14"/>
        <source>Model:</source>
        <translation>模型：</translation>
    </message>
    <message>
        <location line="+29"/>
        <source>Compare takes at most %1 runs; uncheck one first.</source>
        <translation>最多只能比较 %1 次运行，请先取消勾选一个。</translation>
    </message>
    <message>
        <location line="+75"/>
        <source>All models</source>
        <translation>所有模型</translation>
    </message>
    <message>
        <location line="+61"/>
        <source>Compare (%1)</source>
        <translation>比较（%1）</translation>
    </message>
</context>
<context>
    <name>HistoryTableModel</name>
    <message>
        <location filename="../widgets/history/history_table_model.cpp" line="+16"/>
        <source>running</source>
        <translation>运行中</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>finished</source>
        <translation>已完成</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>cancelled</source>
        <translation>已取消</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>interrupted</source>
        <translation>已中断</translation>
    </message>
    <message>
        <location line="+15"/>
        <source>Run %1</source>
        <translation>运行 %1</translation>
    </message>
    <message>
        <location line="+82"/>
        <source>Check 2 to %1 runs and press Compare</source>
        <translation>勾选 2 到 %1 次运行，然后点击“比较”</translation>
    </message>
    <message>
        <location line="+4"/>
        <source>Compare</source>
        <translation>比较</translation>
    </message>
    <message>
        <location line="+0"/>
        <source>Name</source>
        <translation>名称</translation>
    </message>
    <message>
        <location line="+0"/>
        <source>Date</source>
        <translation>日期</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Prompt</source>
        <translation>提示词</translation>
    </message>
    <message>
        <location line="+0"/>
        <source>Plan</source>
        <translation>精度方案</translation>
    </message>
    <message>
        <location line="+0"/>
        <source>Model</source>
        <translation>模型</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Verdict</source>
        <translation>判定</translation>
    </message>
    <message>
        <location line="+0"/>
        <source>Steps</source>
        <translation>步数</translation>
    </message>
    <message>
        <location line="+0"/>
        <source>State</source>
        <translation>状态</translation>
    </message>
    <message>
        <location line="+22"/>
        <source>(empty prompt)</source>
        <translation>（空提示词）</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>stored dtypes</source>
        <translation>存储精度</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>error</source>
        <translation>错误</translation>
    </message>
    <message>
        <location line="+9"/>
        <source>%1 / %2</source>
        <translation>%1 / %2</translation>
    </message>
    <message>
        <location line="+14"/>
        <source>Effective plan: %1</source>
        <translation>实际生效的精度方案：%1</translation>
    </message>
    <message>
        <location line="+7"/>
        <source>The run stopped without finishing (the program was closed or crashed); its finished steps are kept.</source>
        <translation>该运行未完成即停止（程序被关闭或崩溃）；已完成的步骤会保留。</translation>
    </message>
    <message>
        <location line="+54"/>
        <source>No run history is open.</source>
        <translation>未打开任何运行历史记录。</translation>
    </message>
</context>
<context>
    <name>ImageView</name>
    <message>
        <location filename="../widgets/plots/image_view.cpp" line="+13"/>
        <source>No image yet. Start a run to see its final image and verdict here.</source>
        <translation>尚无图像。开始一次运行后，将在此处显示其最终图像和判定。</translation>
    </message>
    <message>
        <location line="+53"/>
        <source>The run was cancelled before the image was decoded.</source>
        <translation>运行在图像解码之前已被取消。</translation>
    </message>
    <message>
        <location line="+62"/>
        <source>mean level %1</source>
        <translation>平均亮度 %1</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>std %1</source>
        <translation>标准差 %1</translation>
    </message>
    <message>
        <location line="+3"/>
        <source>non-finite pixels %1</source>
        <translation>非有限像素 %1</translation>
    </message>
    <message>
        <location line="+3"/>
        <source>(%1 of %2 values)</source>
        <translation>（%2 个值中的 %1 个）</translation>
    </message>
    <message>
        <location line="+14"/>
        <source>OK</source>
        <translation>正常</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>BLACK IMAGE</source>
        <translation>全黑图像</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>FLAT IMAGE</source>
        <translation>纯色图像</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>CONTAINS NaN/Inf</source>
        <translation>含 NaN/Inf</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>ERROR</source>
        <translation>错误</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>CANCELLED</source>
        <translation>已取消</translation>
    </message>
    <message>
        <location line="+188"/>
        <source>No image</source>
        <translation>无图像</translation>
    </message>
</context>
<context>
    <name>LayerHeatmap</name>
    <message>
        <location filename="../widgets/plots/layer_heatmap.cpp" line="+51"/>
        <location line="+103"/>
        <source>text encoding</source>
        <translation>文本编码</translation>
    </message>
    <message>
        <location line="-102"/>
        <location line="+103"/>
        <source>VAE decode</source>
        <translation>VAE 解码</translation>
    </message>
    <message>
        <location line="-102"/>
        <location line="+99"/>
        <source>step %1</source>
        <translation>第 %1 步</translation>
    </message>
    <message>
        <location line="-89"/>
        <source>Show</source>
        <translation>查看</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>Layers and modules</source>
        <translation>层和模块</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Modules only</source>
        <translation>仅模块</translation>
    </message>
    <message>
        <location line="+6"/>
        <source>2^-24</source>
        <translation>2^-24</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>2^-12</source>
        <translation>2^-12</translation>
    </message>
    <message>
        <location line="+0"/>
        <source>65504</source>
        <translation>65504</translation>
    </message>
    <message>
        <location line="+4"/>
        <source>Blue: lots of headroom below fp16&apos;s 65504; red: at the limit</source>
        <translation>蓝色：距 fp16 上限 65504 余量充足；红色：已达上限</translation>
    </message>
    <message>
        <location line="+4"/>
        <source>past 65504</source>
        <translation>超过 65504</translation>
    </message>
    <message>
        <location line="+1"/>
        <location line="+216"/>
        <source>NaN</source>
        <translation>NaN</translation>
    </message>
    <message>
        <location line="-215"/>
        <source>Inf</source>
        <translation>Inf</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>no record</source>
        <translation>无记录</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>first non-finite</source>
        <translation>首个非有限值</translation>
    </message>
    <message>
        <location line="+3"/>
        <source>Show:</source>
        <translation>显示：</translation>
    </message>
    <message>
        <location line="+3"/>
        <source>max|x| / fp16 limit:</source>
        <translation>max|x| / fp16 上限：</translation>
    </message>
    <message>
        <location line="+7"/>
        <location line="+87"/>
        <source>No NaN or Inf so far.</source>
        <translation>目前尚未出现 NaN 或 Inf。</translation>
    </message>
    <message>
        <location line="-85"/>
        <source>Scroll to the first point whose output held NaN or Inf</source>
        <translation>滚动到首个输出含 NaN 或 Inf 的探针点</translation>
    </message>
    <message>
        <location line="+13"/>
        <location line="+74"/>
        <source>Click a cell to see the statistics of that probe point.</source>
        <translation>点击单元格可查看该探针点的统计信息。</translation>
    </message>
    <message>
        <location line="-31"/>
        <source>&lt;b style=&apos;color:#c00000&apos;&gt;First NaN/Inf:&lt;/b&gt; &lt;b&gt;%1&lt;/b&gt; (%2, %3 %4) at %5: NaN %6, +Inf %7, -Inf %8 of %9.</source>
        <translation>&lt;b style=&apos;color:#c00000&apos;&gt;首个 NaN/Inf：&lt;/b&gt;&lt;b&gt;%1&lt;/b&gt;（%2，%3 %4），%5：%9 个值中 NaN %6 个，+Inf %7 个，-Inf %8 个。</translation>
    </message>
    <message>
        <location line="+8"/>
        <source>The point before it, %1, had |max| %2%3.</source>
        <translation>它的前一个探针点 %1 的 |max| 为 %2%3。</translation>
    </message>
    <message>
        <location line="+3"/>
        <source> and non-finite values</source>
        <translation> 且含有非有限值</translation>
    </message>
    <message>
        <location line="+104"/>
        <source>%1 point, %2</source>
        <translation>%1 级探针点，%2</translation>
    </message>
    <message>
        <location line="+4"/>
        <source>No record for this step.</source>
        <translation>此处没有记录。</translation>
    </message>
    <message>
        <location line="+11"/>
        <source>format</source>
        <translation>格式</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>records merged</source>
        <translation>合并的记录数</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>count</source>
        <translation>元素个数</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>min</source>
        <translation>最小值</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>max</source>
        <translation>最大值</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>|max|</source>
        <translation>|max|</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>log2(|max| / 65504)</source>
        <translation>log2(|max| / 65504)</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>mean</source>
        <translation>均值</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>std</source>
        <translation>标准差</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>+Inf</source>
        <translation>+Inf</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>-Inf</source>
        <translation>-Inf</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>over fp16 (|x| &gt; 65504)</source>
        <translation>超出 fp16 范围（|x| &gt; 65504）</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>fp16-subnormal (|x| &lt; 2^-14)</source>
        <translation>fp16 次正规数（|x| &lt; 2^-14）</translation>
    </message>
    <message>
        <location line="+4"/>
        <source>First non-finite point of the run.</source>
        <translation>本次运行的首个非有限值探针点。</translation>
    </message>
</context>
<context>
    <name>LibraryDialog</name>
    <message>
        <location filename="../app/gui/library_dialog.cpp" line="+59"/>
        <source>Model library</source>
        <translation>模型库</translation>
    </message>
    <message>
        <location line="+110"/>
        <source>Select a model, or tick the files of a split set (the model, its VAE and text encoders).</source>
        <translation>选择一个模型，或勾选拆分文件集的各个文件（模型本体、VAE 和文本编码器）。</translation>
    </message>
    <message>
        <location line="+7"/>
        <source>%1 cannot be read: %2</source>
        <translation>无法读取 %1：%2</translation>
    </message>
    <message>
        <location line="+4"/>
        <source>Opens %1 (%2).</source>
        <translation>打开 %1（%2）。</translation>
    </message>
    <message>
        <location line="+5"/>
        <source>%1 is a %2, not a file of a set: open the pipeline folder it belongs to.</source>
        <translation>%1 是%2，不是文件集中的文件：请打开它所属的管线文件夹。</translation>
    </message>
    <message>
        <location line="+7"/>
        <source>These files do not make a model: %1</source>
        <translation>这些文件组不成一个模型：%1</translation>
    </message>
    <message>
        <location line="+5"/>
        <source>Missing, so Open waits: %1</source>
        <translation>尚缺以下部分，暂不能打开：%1</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>Opens %1 as %2.</source>
        <translation>将 %1 作为%2打开。</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>a model</source>
        <translation>一个模型</translation>
    </message>
</context>
<context>
    <name>LibraryPanel</name>
    <message>
        <location filename="../widgets/panels/library_panel.cpp" line="+29"/>
        <source>hf-cache</source>
        <translation>Hugging Face 缓存</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>comfyui</source>
        <translation>ComfyUI</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>a1111</source>
        <translation>AUTOMATIC1111/Forge</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>user</source>
        <translation>已添加</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>pipeline</source>
        <translation>管线</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>component</source>
        <translation>组件</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>file</source>
        <translation>文件</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>shards</source>
        <translation>分片</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>unreadable</source>
        <translation>无法读取</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>diffusers pipeline</source>
        <translation>diffusers 管线</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>diffusers folder</source>
        <translation>diffusers 文件夹</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>transformers folder</source>
        <translation>transformers 文件夹</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>sharded safetensors</source>
        <translation>分片 safetensors</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>weights fit fp16</source>
        <translation>权重在 fp16 范围内</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>unknown</source>
        <translation>未知</translation>
    </message>
    <message>
        <location line="+10"/>
        <source>Add a model file</source>
        <translation>添加模型文件</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Model files (*.safetensors *.json)</source>
        <translation>模型文件 (*.safetensors *.json)</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>The ComfyUI folder (with models/)</source>
        <translation>ComfyUI 文件夹（含 models/）</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>The AUTOMATIC1111 or Forge folder (with models/)</source>
        <translation>AUTOMATIC1111 或 Forge 文件夹（含 models/）</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>A folder of models</source>
        <translation>模型文件夹</translation>
    </message>
    <message>
        <location line="+10"/>
        <source>Add ComfyUI folder...</source>
        <translation>添加 ComfyUI 文件夹…</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Add A1111/Forge folder...</source>
        <translation>添加 A1111/Forge 文件夹…</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Add folder...</source>
        <translation>添加文件夹…</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Add file...</source>
        <translation>添加文件…</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Remove</source>
        <translation>移除</translation>
    </message>
    <message>
        <location line="+23"/>
        <source>Filter: name, family, dtype, error...</source>
        <translation>筛选：名称、系列、数据类型、错误…</translation>
    </message>
    <message>
        <location line="+3"/>
        <source>Name</source>
        <translation>名称</translation>
    </message>
    <message>
        <location line="+0"/>
        <source>Family</source>
        <translation>系列</translation>
    </message>
    <message>
        <location line="+0"/>
        <source>Variant</source>
        <translation>变体</translation>
    </message>
    <message>
        <location line="+0"/>
        <source>Layout</source>
        <translation>布局</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Stored</source>
        <translation>存储精度</translation>
    </message>
    <message>
        <location line="+0"/>
        <source>Parameters</source>
        <translation>参数量</translation>
    </message>
    <message>
        <location line="+0"/>
        <source>Size</source>
        <translation>大小</translation>
    </message>
    <message>
        <location line="+0"/>
        <source>fp16</source>
        <translation>fp16</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Source</source>
        <translation>来源</translation>
    </message>
    <message>
        <location line="+0"/>
        <source>Error</source>
        <translation>错误</translation>
    </message>
    <message>
        <location line="+28"/>
        <source>Rescan</source>
        <translation>重新扫描</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Stop</source>
        <translation>停止</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Open</source>
        <translation>打开</translation>
    </message>
    <message>
        <location line="+13"/>
        <source>Select a model, or tick the files of a split set (the model, its VAE and text encoders).</source>
        <translation>选择一个模型，或勾选拆分文件集的各个文件（模型本体、VAE 和文本编码器）。</translation>
    </message>
    <message>
        <location line="+31"/>
        <source>%1 GB</source>
        <translation>%1 GB</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>%1 MB</source>
        <translation>%1 MB</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>%1 kB</source>
        <translation>%1 kB</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>%1 B</source>
        <translation>%1 B</translation>
    </message>
    <message>
        <location line="+22"/>
        <source>Hugging Face cache: none found ($HF_HOME/hub, ~/.cache/huggingface/hub)</source>
        <translation>Hugging Face 缓存：未找到（$HF_HOME/hub、~/.cache/huggingface/hub）</translation>
    </message>
    <message>
        <location line="+3"/>
        <source>Hugging Face cache: %1</source>
        <translation>Hugging Face 缓存：%1</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>ComfyUI: %1</source>
        <translation>ComfyUI：%1</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>AUTOMATIC1111/Forge: %1</source>
        <translation>AUTOMATIC1111/Forge：%1</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Added: %1</source>
        <translation>已添加：%1</translation>
    </message>
    <message>
        <location line="+86"/>
        <source>Scanning... (the list so far stays usable)</source>
        <translation>正在扫描…（已列出的条目仍可使用）</translation>
    </message>
    <message numerus="yes">
        <location line="+1"/>
        <source>%n model(s)</source>
        <translation>
            <numerusform>%n 个模型</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <location line="+2"/>
        <source>, %n cannot be read (see the Error column)</source>
        <translation>
            <numerusform>，%n 个无法读取（见“错误”列）</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>LogPanel</name>
    <message>
        <location filename="../widgets/panels/log_panel.cpp" line="+25"/>
        <source>INFO</source>
        <translation>信息</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>WARN</source>
        <translation>警告</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>ERROR</source>
        <translation>错误</translation>
    </message>
    <message>
        <location line="+8"/>
        <source>load</source>
        <translation>加载</translation>
    </message>
    <message>
        <location line="+0"/>
        <source>run</source>
        <translation>运行</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>step</source>
        <translation>步</translation>
    </message>
    <message>
        <location line="+0"/>
        <source>nan</source>
        <translation>NaN</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>decode</source>
        <translation>解码</translation>
    </message>
    <message>
        <location line="+0"/>
        <source>fix</source>
        <translation>修复</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>history</source>
        <translation>历史</translation>
    </message>
    <message>
        <location line="+0"/>
        <source>report</source>
        <translation>报告</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>reproduce</source>
        <translation>复现</translation>
    </message>
    <message>
        <location line="+30"/>
        <source>All events</source>
        <translation>全部事件</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Warnings and errors</source>
        <translation>警告和错误</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Errors only</source>
        <translation>仅错误</translation>
    </message>
    <message>
        <location line="+3"/>
        <source>Copy all</source>
        <translation>全部复制</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Copy every kept line, all levels, as plain text</source>
        <translation>以纯文本复制所有保留的日志行（包括所有级别）</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>Clear</source>
        <translation>清空</translation>
    </message>
    <message>
        <location line="+5"/>
        <source>Show:</source>
        <translation>显示：</translation>
    </message>
    <message>
        <location line="+96"/>
        <source>Warnings: %1, errors: %2</source>
        <translation>警告：%1，错误：%2</translation>
    </message>
</context>
<context>
    <name>MainWindow</name>
    <message>
        <location filename="../app/gui/main_window.cpp" line="+75"/>
        <location line="+140"/>
        <source>Halfscope</source>
        <translation>Halfscope</translation>
    </message>
    <message>
        <location line="-123"/>
        <source>Final image</source>
        <translation>最终图像</translation>
    </message>
    <message>
        <location line="+28"/>
        <source>Setup</source>
        <translation>配置</translation>
    </message>
    <message>
        <location line="+27"/>
        <source>Run</source>
        <translation>运行</translation>
    </message>
    <message>
        <location line="+4"/>
        <source>Compare</source>
        <translation>比较</translation>
    </message>
    <message>
        <location line="+4"/>
        <source>Log</source>
        <translation>日志</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>History</source>
        <translation>历史记录</translation>
    </message>
    <message>
        <location line="+5"/>
        <source>Find minimal fix</source>
        <translation>查找最小修复</translation>
    </message>
    <message>
        <location line="+28"/>
        <source>Running...</source>
        <translation>正在运行…</translation>
    </message>
    <message>
        <location line="+0"/>
        <location line="+4"/>
        <source>Ready</source>
        <translation>就绪</translation>
    </message>
    <message>
        <location line="+11"/>
        <location filename="../app/gui/ui_fonts.cpp" line="+35"/>
        <source>&amp;File</source>
        <translation>文件(&amp;F)</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>&amp;Open model folder...</source>
        <translation>打开模型文件夹(&amp;O)…</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Open model &amp;files...</source>
        <translation>打开模型文件(&amp;F)…</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>Open model files: the model, its VAE and text encoders</source>
        <translation>打开模型文件：模型本身、它的 VAE 和文本编码器</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Model files (*.safetensors)</source>
        <translation>模型文件 (*.safetensors)</translation>
    </message>
    <message>
        <location line="+3"/>
        <source>Open the &amp;demo model</source>
        <translation>打开演示模型(&amp;D)</translation>
    </message>
    <message>
        <location line="+3"/>
        <source>The embedded demo model is missing.</source>
        <translation>找不到内置的演示模型。</translation>
    </message>
    <message>
        <location line="+5"/>
        <source>Model &amp;library...</source>
        <translation>模型库(&amp;L)…</translation>
    </message>
    <message>
        <location line="+0"/>
        <source>Ctrl+L</source>
        <translation>Ctrl+L</translation>
    </message>
    <message>
        <location line="+12"/>
        <source>&amp;Export report...</source>
        <translation>导出报告(&amp;E)…</translation>
    </message>
    <message>
        <location line="+0"/>
        <source>Ctrl+E</source>
        <translation>Ctrl+E</translation>
    </message>
    <message>
        <location line="+3"/>
        <source>&amp;Settings...</source>
        <translation>设置(&amp;S)…</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>&amp;Quit</source>
        <translation>退出(&amp;Q)</translation>
    </message>
    <message>
        <location line="+2"/>
        <location filename="../app/gui/ui_fonts.cpp" line="+1"/>
        <source>&amp;Run</source>
        <translation>运行(&amp;R)</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>&amp;Generate</source>
        <translation>生成(&amp;G)</translation>
    </message>
    <message>
        <location line="+0"/>
        <source>Ctrl+Return</source>
        <translation>Ctrl+Return</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>&amp;Stop</source>
        <translation>停止(&amp;S)</translation>
    </message>
    <message>
        <location line="+0"/>
        <source>Esc</source>
        <translation>Esc</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>Compare: &amp;bf16 vs fp16</source>
        <translation>比较：bf16 与 fp16(&amp;B)</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Compare: &amp;one module at a time in fp16</source>
        <translation>比较：逐个模块以 fp16 运行(&amp;O)</translation>
    </message>
    <message>
        <location line="+3"/>
        <source>Find &amp;minimal fix</source>
        <translation>查找最小修复(&amp;M)</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>&amp;Apply the fixed plan</source>
        <translation>应用修复后的精度方案(&amp;A)</translation>
    </message>
    <message>
        <location line="+6"/>
        <source>Compare the &amp;top remedies</source>
        <translation>比较最佳补救方案(&amp;T)</translation>
    </message>
    <message>
        <location line="+3"/>
        <location filename="../app/gui/ui_fonts.cpp" line="+1"/>
        <source>&amp;View</source>
        <translation>视图(&amp;V)</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>&amp;Log scale for |max|</source>
        <translation>|max| 使用对数刻度(&amp;L)</translation>
    </message>
    <message>
        <location line="+4"/>
        <source>&amp;Help</source>
        <translation>帮助(&amp;H)</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>&amp;Welcome...</source>
        <translation>欢迎(&amp;W)…</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>&amp;About Halfscope</source>
        <translation>关于 Halfscope(&amp;A)</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>About Halfscope</source>
        <translation>关于 Halfscope</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>&lt;b&gt;Halfscope %1&lt;/b&gt;&lt;p&gt;Finds out why a diffusion model gives a black image in half precision: which layer overflowed first, at which step, and which precision plan fixes it at the lowest cost.&lt;/p&gt;</source>
        <translation>&lt;b&gt;Halfscope %1&lt;/b&gt;&lt;p&gt;找出扩散模型在半精度下生成黑图的原因：哪一层最先溢出、在第几步溢出，以及哪种精度方案能以最低代价修复它。&lt;/p&gt;</translation>
    </message>
    <message>
        <location line="+48"/>
        <source>Open a diffusers pipeline folder (with model_index.json)</source>
        <translation>打开 diffusers 管线文件夹（含 model_index.json）</translation>
    </message>
    <message>
        <location line="+6"/>
        <location line="+4"/>
        <source>Export report</source>
        <translation>导出报告</translation>
    </message>
    <message>
        <location line="-4"/>
        <source>HTML report (*.html)</source>
        <translation>HTML 报告 (*.html)</translation>
    </message>
    <message>
        <location line="+21"/>
        <source>bf16 on the CPU: %1</source>
        <translation>CPU 上的 bf16：%1</translation>
    </message>
</context>
<context>
    <name>ModelPanel</name>
    <message>
        <location filename="../widgets/panels/model_panel.cpp" line="+46"/>
        <source>Open folder…</source>
        <translation>打开文件夹…</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Open files…</source>
        <translation>打开文件…</translation>
    </message>
    <message>
        <location line="+14"/>
        <source>Component</source>
        <translation>组件</translation>
    </message>
    <message>
        <location line="+0"/>
        <source>Class</source>
        <translation>类</translation>
    </message>
    <message>
        <location line="+0"/>
        <source>Stored</source>
        <translation>存储精度</translation>
    </message>
    <message>
        <location line="+0"/>
        <source>Parameters</source>
        <translation>参数量</translation>
    </message>
    <message>
        <location line="+22"/>
        <source>Open a diffusers pipeline folder (with model_index.json). You can also drop a folder onto this panel.</source>
        <translation>打开 diffusers 管线文件夹（含 model_index.json）。也可以将文件夹拖放到此面板上。</translation>
    </message>
    <message>
        <location line="+4"/>
        <source>Open a single-file checkpoint (flux1-dev.safetensors), or pick a set of files together: the model, its VAE (ae.safetensors) and text encoders (clip_l, t5xxl). Which file is which is found from what each holds. You can also drop the files onto this panel.</source>
        <translation>打开单文件检查点（flux1-dev.safetensors），或一次选中一组文件：模型本身、它的 VAE（ae.safetensors）和文本编码器（clip_l、t5xxl）。每个文件的用途根据其内容自动识别。也可以把这些文件拖放到此面板上。</translation>
    </message>
    <message>
        <location line="+31"/>
        <source>Open a model folder</source>
        <translation>打开模型文件夹</translation>
    </message>
    <message>
        <location line="+3"/>
        <source>Open model files</source>
        <translation>打开模型文件</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Model files (*.safetensors)</source>
        <translation>模型文件 (*.safetensors)</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>No model loaded</source>
        <translation>未加载模型</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>Open a diffusers pipeline folder or model files (.safetensors), or drop them here.</source>
        <translation>打开 diffusers 管线文件夹或模型文件（.safetensors），或将其拖放到此处。</translation>
    </message>
    <message>
        <location line="+6"/>
        <source>%1 K</source>
        <translation>%1 K</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>%1 M</source>
        <translation>%1 M</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>%1 B</source>
        <translation>%1 B</translation>
    </message>
    <message>
        <location line="+11"/>
        <location line="+1"/>
        <source>%1: %2</source>
        <translation>%1：%2</translation>
    </message>
    <message>
        <location line="+5"/>
        <source>Runs as %1</source>
        <translation>以 %1 运行</translation>
    </message>
    <message>
        <location line="+9"/>
        <source>%L1 parameters</source>
        <translation>%L1 个参数</translation>
    </message>
    <message>
        <location line="+4"/>
        <source>%1 parameters in 1 component</source>
        <translation>1 个组件，共 %1 个参数</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>%1 parameters in %2 components</source>
        <translation>%2 个组件，共 %1 个参数</translation>
    </message>
    <message>
        <location line="+9"/>
        <source>model</source>
        <translation>模型</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>VAE</source>
        <translation>VAE</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>text encoder</source>
        <translation>文本编码器</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>text encoder 2</source>
        <translation>文本编码器 2</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>tokenizer</source>
        <translation>分词器</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>text encoder 3</source>
        <translation>文本编码器 3</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>tokenizer 2</source>
        <translation>分词器 2</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>tokenizer 3</source>
        <translation>分词器 3</translation>
    </message>
    <message>
        <location line="+20"/>
        <source>Loading the model…</source>
        <translation>正在加载模型…</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Loading %1…</source>
        <translation>正在加载 %1…</translation>
    </message>
    <message>
        <location line="+15"/>
        <source>The model could not be opened.</source>
        <translation>无法打开该模型。</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>The model files %1 could not be opened.</source>
        <translation>无法打开模型文件 %1。</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>The model in %1 could not be opened.</source>
        <translation>无法打开 %1 中的模型。</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>%1 is still loaded.</source>
        <translation>%1 仍处于加载状态。</translation>
    </message>
    <message>
        <location line="+26"/>
        <source>Choose the %1 folder…</source>
        <translation>选择%1文件夹…</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Choose the %1 file…</source>
        <translation>选择%1文件…</translation>
    </message>
    <message>
        <location line="+7"/>
        <source>Model library…</source>
        <translation>模型库…</translation>
    </message>
    <message>
        <location line="+3"/>
        <source>Pick a whole set of files from the model library; it names what a set lacks before it opens.</source>
        <translation>从模型库中挑选整套文件；打开之前它会列出一套文件还缺少什么。</translation>
    </message>
</context>
<context>
    <name>PrecisionPanel</name>
    <message>
        <location filename="../widgets/panels/precision_panel.cpp" line="+70"/>
        <source>GPU memory cap</source>
        <translation>GPU 显存上限</translation>
    </message>
    <message>
        <location line="+63"/>
        <source> GB</source>
        <translation> GB</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>no cap</source>
        <translation>不设上限</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>Lets a run take at most this much of the GPU&apos;s memory, so that a larger card behaves like a 16 GB T4 or a 12 GB RTX 3060: a model that would not fit there runs out of memory here too. Applied when the model is loaded.</source>
        <translation>运行最多只能占用 GPU 的这么多显存，使大显存的卡表现得像 16 GB 的 T4 或 12 GB 的 RTX 3060：在那些卡上放不下的模型，在这里同样会显存不足。在加载模型时生效。</translation>
    </message>
    <message>
        <location line="-88"/>
        <source>Text encoder</source>
        <translation>文本编码器</translation>
    </message>
    <message>
        <location line="+10"/>
        <source>UNet</source>
        <translation>UNet</translation>
    </message>
    <message>
        <location line="-6"/>
        <source>VAE</source>
        <translation>VAE</translation>
    </message>
    <message>
        <location line="-2"/>
        <source>Text encoder 2</source>
        <translation>文本编码器 2</translation>
    </message>
    <message>
        <location line="+4"/>
        <source>Adapter</source>
        <translation>适配器</translation>
    </message>
    <message>
        <location line="+36"/>
        <source>e.g. transformer=fp16,transformer.transformer_blocks.2=bf16</source>
        <translation>例如 transformer=fp16,transformer.transformer_blocks.2=bf16</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>The full plan: pattern=format rules separated by commas; the last matching rule wins; &apos;*&apos; matches any characters. Press Return to apply.</source>
        <translation>完整的精度方案：以逗号分隔的“模式=格式”规则；最后一条匹配的规则生效；&apos;*&apos; 匹配任意字符。按回车键应用。</translation>
    </message>
    <message>
        <location line="+6"/>
        <source>Presets:</source>
        <translation>预设：</translation>
    </message>
    <message>
        <location line="+6"/>
        <source>All stored</source>
        <translation>全部按存储精度</translation>
    </message>
    <message>
        <location line="+0"/>
        <source>All bf16</source>
        <translation>全部 bf16</translation>
    </message>
    <message>
        <location line="+0"/>
        <source>All fp16</source>
        <translation>全部 fp16</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Transformer fp16</source>
        <translation>Transformer 用 fp16</translation>
    </message>
    <message>
        <location line="+13"/>
        <source>The GPU the model will run on: the advice and the remedies&apos; costs speak for it</source>
        <translation>模型将要运行的 GPU：建议和补救方案的代价都针对它</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>this device</source>
        <translation>本设备</translation>
    </message>
    <message>
        <location line="+3"/>
        <source>by hand…</source>
        <translation>手动输入…</translation>
    </message>
    <message>
        <location line="-49"/>
        <source>e.g. 7.5</source>
        <translation>例如 7.5</translation>
    </message>
    <message>
        <location line="+0"/>
        <source>CUDA compute capability X.Y</source>
        <translation>CUDA 计算能力 X.Y</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>e.g. 16</source>
        <translation>例如 16</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Memory in GB; empty or 0: unknown</source>
        <translation>显存大小（GB）；留空或 0：未知</translation>
    </message>
    <message>
        <location line="+50"/>
        <source>Capability</source>
        <translation>计算能力</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>Memory GB</source>
        <translation>显存 GB</translation>
    </message>
    <message>
        <location line="+13"/>
        <source>Device</source>
        <translation>设备</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>Advice for:</source>
        <translation>建议针对：</translation>
    </message>
    <message>
        <location line="+3"/>
        <source>Plan (advanced)</source>
        <translation>精度方案（高级）</translation>
    </message>
    <message>
        <location line="+67"/>
        <source>&lt;b&gt;Component&lt;/b&gt;</source>
        <translation>&lt;b&gt;组件&lt;/b&gt;</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>&lt;b&gt;Runs as&lt;/b&gt;</source>
        <translation>&lt;b&gt;运行精度&lt;/b&gt;</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>&lt;b&gt;On this device&lt;/b&gt;</source>
        <translation>&lt;b&gt;在此设备上&lt;/b&gt;</translation>
    </message>
    <message>
        <location line="+13"/>
        <source>stored</source>
        <translation>存储精度</translation>
    </message>
    <message>
        <location line="+0"/>
        <source>stored (%1)</source>
        <translation>存储精度（%1）</translation>
    </message>
    <message>
        <location line="+100"/>
        <source>%1, native</source>
        <translation>%1，原生</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>%1, emulated</source>
        <translation>%1，模拟</translation>
    </message>
    <message>
        <location line="+5"/>
        <source>%1: %2, %3</source>
        <translation>%1：%2，%3</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>native</source>
        <translation>原生</translation>
    </message>
    <message>
        <location line="+0"/>
        <source>emulated</source>
        <translation>模拟</translation>
    </message>
    <message>
        <location line="+3"/>
        <source> (+1 block rule)</source>
        <translation> (+1 条块规则)</translation>
    </message>
    <message>
        <location line="+2"/>
        <source> (+%1 block rules)</source>
        <translation> (+%1 条块规则)</translation>
    </message>
    <message>
        <location line="+30"/>
        <source>%1&lt;br&gt;&lt;tt&gt;%2&lt;b&gt;&lt;u&gt;%3&lt;/u&gt;&lt;/b&gt;%4&lt;/tt&gt;&lt;br&gt;The last valid plan stays in use.</source>
        <translation>%1&lt;br&gt;&lt;tt&gt;%2&lt;b&gt;&lt;u&gt;%3&lt;/u&gt;&lt;/b&gt;%4&lt;/tt&gt;&lt;br&gt;仍使用上一个有效的精度方案。</translation>
    </message>
    <message>
        <location line="+77"/>
        <source>Memory GB: &quot;%1&quot; is not a number (e.g. 16; empty or 0: unknown)</source>
        <translation>显存 GB：“%1”不是数字（例如 16；留空或 0：未知）</translation>
    </message>
</context>
<context>
    <name>PreviewStrip</name>
    <message>
        <location filename="../widgets/plots/preview_strip.cpp" line="+13"/>
        <source>NaN pixel</source>
        <translation>NaN 像素</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Inf pixel</source>
        <translation>Inf 像素</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>VAE</source>
        <translation>VAE</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>full VAE decode; the others are latent-to-RGB projections (low resolution, enlarged). Click a step to decode it fully.</source>
        <translation>完整 VAE 解码；其余为潜变量到 RGB 的投影（低分辨率，已放大）。点击某一步可对其进行完整解码。</translation>
    </message>
</context>
<context>
    <name>PromptPanel</name>
    <message>
        <location filename="../widgets/panels/prompt_panel.cpp" line="+37"/>
        <source>%1 ms/step</source>
        <translation>%1 毫秒/步</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>%1 s/step</source>
        <translation>%1 秒/步</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>%1 min/step</source>
        <translation>%1 分钟/步</translation>
    </message>
    <message>
        <location line="+7"/>
        <source>Prompt (may be empty: the model then draws unconditionally)</source>
        <translation>提示词（可留空：此时模型进行无条件生成）</translation>
    </message>
    <message>
        <location line="+3"/>
        <location line="+200"/>
        <source>Negative prompt (used when guidance &gt; 1)</source>
        <translation>负面提示词（引导系数 &gt; 1 时使用）</translation>
    </message>
    <message>
        <location line="-191"/>
        <source>Sampler</source>
        <translation>采样器</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Override</source>
        <translation>覆盖</translation>
    </message>
    <message>
        <location filename="../app/gui/ui_fonts.cpp" line="+1"/>
        <location filename="../widgets/panels/prompt_panel.cpp" line="+4"/>
        <source>Generate</source>
        <translation>生成</translation>
    </message>
    <message>
        <location filename="../widgets/panels/prompt_panel.cpp" line="+1"/>
        <source>Stop</source>
        <translation>停止</translation>
    </message>
    <message>
        <location line="+17"/>
        <source>Classifier-free guidance scale. 1 or less turns guidance off: one model pass per step and the negative prompt is not used.</source>
        <translation>无分类器引导（CFG）系数。小于或等于 1 时关闭引导：每步只进行一次模型前向计算，且不使用负面提示词。</translation>
    </message>
    <message>
        <location line="+11"/>
        <source>The scheduler of the run. The model&apos;s own is what its files name; the others keep its training schedule and prediction type, as diffusers&apos; from_config does.</source>
        <translation>本次运行使用的调度器。“模型自带”即模型文件中指定的调度器；其他选项沿用模型的训练噪声表和预测类型，与 diffusers 的 from_config 相同。</translation>
    </message>
    <message>
        <location line="+4"/>
        <source>Replace the scheduler&apos;s shift from the model&apos;s configuration</source>
        <translation>替换模型配置中调度器的偏移量（shift）</translation>
    </message>
    <message>
        <location line="+9"/>
        <source>never</source>
        <translation>从不</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>every </source>
        <translation>每 </translation>
    </message>
    <message>
        <location line="+1"/>
        <source> steps</source>
        <translation> 步</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>Run the full VAE decode of the current estimate every k steps (slow; the cheap latent preview is shown at every step)</source>
        <translation>每 k 步对当前估计运行一次完整的 VAE 解码（较慢；每一步都会显示低开销的潜变量预览）</translation>
    </message>
    <message>
        <location line="+3"/>
        <source>Off</source>
        <translation>关闭</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Modules</source>
        <translation>模块</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Layers</source>
        <translation>层</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Every op</source>
        <translation>每个算子</translation>
    </message>
    <message>
        <location line="+3"/>
        <source>How finely activations are recorded. Layers finds the first layer that overflows; every op is slower.</source>
        <translation>记录激活值的粒度。“层”可找出首个溢出的层；“每个算子”速度更慢。</translation>
    </message>
    <message>
        <location line="+5"/>
        <source>Start a run (Ctrl+Return)</source>
        <translation>开始运行（Ctrl+Return）</translation>
    </message>
    <message>
        <location line="+7"/>
        <location line="+219"/>
        <source>idle</source>
        <translation>空闲</translation>
    </message>
    <message>
        <location line="-205"/>
        <source>Seed</source>
        <translation>种子</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Steps</source>
        <translation>步数</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Guidance</source>
        <translation>引导系数</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Size</source>
        <translation>尺寸</translation>
    </message>
    <message>
        <location line="+3"/>
        <source>Shift</source>
        <translation>偏移</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Full decode</source>
        <translation>完整解码</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Probes</source>
        <translation>探针</translation>
    </message>
    <message>
        <location line="+14"/>
        <source>Prompt</source>
        <translation>提示词</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>Negative prompt</source>
        <translation>负面提示词</translation>
    </message>
    <message>
        <location line="+86"/>
        <source>This model takes no negative prompt</source>
        <translation>此模型不接受负面提示词</translation>
    </message>
    <message>
        <location line="+9"/>
        <source>The model&apos;s own</source>
        <translation>模型自带</translation>
    </message>
    <message>
        <location line="+12"/>
        <source>multiples of %1, from %2 to %3 pixels</source>
        <translation>须为 %1 的倍数，范围 %2 到 %3 像素</translation>
    </message>
    <message>
        <location line="+39"/>
        <source>The prompt has %1 characters. The text encoder reads at most %2 tokens; the rest will be cut off.</source>
        <translation>提示词有 %1 个字符。文本编码器最多读取 %2 个 token，超出部分将被截断。</translation>
    </message>
    <message>
        <location line="+5"/>
        <source>The negative prompt has %1 characters. The text encoder reads at most %2 tokens; the rest will be cut off.</source>
        <translation>负面提示词有 %1 个字符。文本编码器最多读取 %2 个 token，超出部分将被截断。</translation>
    </message>
    <message>
        <location line="+6"/>
        <source>Not understood by the demo model: %1. It knows only the words of its shapes, colours, sizes, positions and backgrounds; other words are ignored at best.</source>
        <translation>演示模型无法理解：%1。它只认识表示形状、颜色、大小、位置和背景的词；其他词最多会被忽略。</translation>
    </message>
    <message>
        <location line="+13"/>
        <source>starting…</source>
        <translation>正在启动…</translation>
    </message>
    <message>
        <location line="+29"/>
        <source>step %1 (%2/%3 done)</source>
        <translation>第 %1 步（已完成 %2/%3）</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>%1/%2 done</source>
        <translation>已完成 %1/%2</translation>
    </message>
</context>
<context>
    <name>QAbstractFileIconProvider</name>
    <message>
        <location filename="../app/gui/ui_language.cpp" line="+16"/>
        <source>Drive</source>
        <translation>驱动器</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Folder</source>
        <comment>All other platforms</comment>
        <translation>文件夹</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Unknown</source>
        <translation>未知</translation>
    </message>
</context>
<context>
    <name>ReproduceImage</name>
    <message>
        <location filename="../app/gui/reproduce_image.cpp" line="+84"/>
        <source>&amp;Reproduce image...</source>
        <translation>复现图像(&amp;R)...</translation>
    </message>
    <message>
        <location line="+3"/>
        <source>Read how a PNG was made (ComfyUI, A1111, Forge) and run it again</source>
        <translation>读取 PNG 的生成方式（ComfyUI、A1111、Forge）并再次运行</translation>
    </message>
    <message>
        <location line="+12"/>
        <source>Original image</source>
        <translation>原始图像</translation>
    </message>
    <message>
        <location line="+63"/>
        <location line="+273"/>
        <source>Reproduce image</source>
        <translation>复现图像</translation>
    </message>
    <message>
        <location line="-272"/>
        <source>Images with their settings (*.png);;All files (*)</source>
        <translation>带生成设置的图像 (*.png);;所有文件 (*)</translation>
    </message>
    <message>
        <location line="+11"/>
        <source>Cannot reproduce the image: %1</source>
        <translation>无法复现该图像：%1</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>The image&apos;s settings cannot be read, so nothing was changed.

%1</source>
        <translation>无法读取该图像的设置，因此未做任何更改。

%1</translation>
    </message>
    <message>
        <location line="+8"/>
        <source>Reproducing %1: its settings</source>
        <translation>正在复现 %1：其设置如下</translation>
    </message>
    <message>
        <location line="+20"/>
        <source>The image&apos;s picture cannot be shown: %1</source>
        <translation>无法显示该图像的画面：%1</translation>
    </message>
    <message>
        <location line="+6"/>
        <source>The image being reproduced: %1</source>
        <translation>正在复现的图像：%1</translation>
    </message>
    <message>
        <location line="+29"/>
        <source>Looking for the image&apos;s files in the model library</source>
        <translation>正在模型库中查找该图像的文件</translation>
    </message>
    <message>
        <location line="+32"/>
        <source>Hugging Face cache: %1</source>
        <translation>Hugging Face 缓存：%1</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>ComfyUI: %1</source>
        <translation>ComfyUI：%1</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>A1111 / Forge: %1</source>
        <translation>A1111 / Forge：%1</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>added: %1</source>
        <translation>已添加：%1</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>(no folders: add your ComfyUI or A1111 folder in the model library)</source>
        <translation>（没有文件夹：请在模型库中添加你的 ComfyUI 或 A1111 文件夹）</translation>
    </message>
    <message>
        <location line="+7"/>
        <source>The model library could not be searched: %1</source>
        <translation>无法搜索模型库：%1</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>The model library could not be searched for the image&apos;s files: %1</source>
        <translation>无法在模型库中搜索该图像的文件：%1</translation>
    </message>
    <message>
        <location line="+6"/>
        <source>The library cache was not written: %1</source>
        <translation>未能写入模型库缓存：%1</translation>
    </message>
    <message>
        <location line="+5"/>
        <source>The image names no model file: its settings go to the open model</source>
        <translation>该图像未指明模型文件：其设置将用于当前打开的模型</translation>
    </message>
    <message>
        <location line="+8"/>
        <source>%1: found at %2</source>
        <translation>%1：位于 %2</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>The image&apos;s model files were not found: %1</source>
        <translation>未找到该图像的模型文件：%1</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>The image&apos;s model files were not found in the model library:
  %1

Searched:
%2

The image&apos;s settings are in the panels. Add the folder that holds the files in the model library, or keep the current model.</source>
        <translation>在模型库中未找到该图像的模型文件：
  %1

已搜索：
%2

该图像的设置已填入面板。请在模型库中添加存放这些文件的文件夹，或保留当前模型。</translation>
    </message>
    <message>
        <location line="+11"/>
        <source>The image&apos;s files do not make a model: %1</source>
        <translation>该图像的文件无法组成一个模型：%1</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>The image&apos;s files were found but do not make a model: %1

The image&apos;s settings are in the panels. Pick the files in the model library, or keep the current model.</source>
        <translation>已找到该图像的文件，但它们无法组成一个模型：%1

该图像的设置已填入面板。请在模型库中选择文件，或保留当前模型。</translation>
    </message>
    <message>
        <location line="+10"/>
        <source>The image&apos;s files are the open model: it is kept</source>
        <translation>该图像的文件即当前打开的模型：保留该模型</translation>
    </message>
    <message>
        <location line="+42"/>
        <source>The reproduction runs ComfyUI&apos;s sampler %1 on its %2 schedule</source>
        <translation>复现使用 ComfyUI 的采样器 %1 及其 %2 调度</translation>
    </message>
    <message>
        <location line="+19"/>
        <source>not reproduced: %1</source>
        <translation>未复现：%1</translation>
    </message>
    <message>
        <location line="+13"/>
        <source>the image&apos;s sampler %1 runs as %2, on the model&apos;s scheduler config rather than ComfyUI&apos;s sigma schedule</source>
        <translation>该图像的采样器 %1 以 %2 运行，使用模型调度器配置而非 ComfyUI 的 sigma 噪声表</translation>
    </message>
    <message>
        <location line="+4"/>
        <source>the image&apos;s sampler %1 is not among this model&apos;s samplers: the model&apos;s own scheduler runs</source>
        <translation>该图像的采样器 %1 不在此模型的采样器之列：将使用模型自带的调度器</translation>
    </message>
    <message>
        <location line="+11"/>
        <source>the image&apos;s size %1 x %2 is %3 x %4 here: the model takes other sizes</source>
        <translation>该图像的尺寸 %1 x %2 在此为 %3 x %4：该模型接受的尺寸不同</translation>
    </message>
    <message>
        <location line="+6"/>
        <source>Not as the image: %1</source>
        <translation>与原图不同：%1</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>The image&apos;s sampler %1 runs as ComfyUI computes it</source>
        <translation>图像的采样器 %1 按 ComfyUI 的计算方式运行</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>The image&apos;s settings are set: Generate runs them</source>
        <translation>已填入该图像的设置：点击“生成”即可运行</translation>
    </message>
    <message>
        <location line="+11"/>
        <source>Open the model library...</source>
        <translation>打开模型库...</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>Keep the current model</source>
        <translation>保留当前模型</translation>
    </message>
</context>
<context>
    <name>RunHistory</name>
    <message>
        <location filename="../widgets/store/history_finish.cpp" line="+71"/>
        <source>Cannot save the outcome of run %1</source>
        <translation>无法保存运行 %1 的结果</translation>
    </message>
    <message>
        <location line="+10"/>
        <source>Cannot save the components</source>
        <translation>无法保存组件</translation>
    </message>
    <message>
        <location line="+16"/>
        <source>Cannot save the steps</source>
        <translation>无法保存步骤</translation>
    </message>
    <message>
        <location line="+14"/>
        <location line="+6"/>
        <source>Cannot save the probe records</source>
        <translation>无法保存探针记录</translation>
    </message>
    <message>
        <location filename="../widgets/store/run_history.cpp" line="+355"/>
        <source>Cannot save the final image</source>
        <translation>无法保存最终图像</translation>
    </message>
    <message>
        <location filename="../widgets/store/history_finish.cpp" line="+24"/>
        <location line="+11"/>
        <source>Cannot save the first non-finite point</source>
        <translation>无法保存首个非有限值探针点</translation>
    </message>
    <message>
        <location filename="../widgets/store/history_images.cpp" line="+23"/>
        <source>Cannot write the image file %1: %2</source>
        <translation>无法写入图像文件 %1：%2</translation>
    </message>
    <message>
        <location line="+11"/>
        <source>Cannot encode the image %1: %2</source>
        <translation>无法编码图像 %1：%2</translation>
    </message>
    <message>
        <location line="+13"/>
        <source>The image file %1 is not a regular file of at most 256 MB; it was not read</source>
        <translation>图像文件 %1 不是不超过 256 MB 的普通文件；未读取</translation>
    </message>
    <message>
        <location line="+8"/>
        <source>Cannot read the image file %1: %2</source>
        <translation>无法读取图像文件 %1：%2</translation>
    </message>
    <message>
        <location line="+9"/>
        <source>The image file %1 is damaged: %2</source>
        <translation>图像文件 %1 已损坏：%2</translation>
    </message>
    <message>
        <location line="+5"/>
        <source>The image file %1 is %2 x %3 pixels, the run recorded %4 x %5</source>
        <translation>图像文件 %1 为 %2 x %3 像素，而运行记录的是 %4 x %5</translation>
    </message>
    <message>
        <location filename="../widgets/store/history_load.cpp" line="+140"/>
        <source>the image path &apos;%1&apos; is not inside the history&apos;s data folder; the image was not read</source>
        <translation>图像路径“%1”不在历史记录的数据文件夹内；未读取该图像</translation>
    </message>
    <message>
        <location line="+76"/>
        <location line="+18"/>
        <location filename="../widgets/store/run_history.cpp" line="-110"/>
        <source>Cannot read the run history</source>
        <translation>无法读取运行历史记录</translation>
    </message>
    <message>
        <location line="+4"/>
        <location line="+22"/>
        <location filename="../widgets/store/run_history.cpp" line="+1"/>
        <location line="+223"/>
        <source>There is no run %1 in the history.</source>
        <translation>历史记录中没有运行 %1。</translation>
    </message>
    <message>
        <location line="-4"/>
        <source>Cannot read run %1</source>
        <translation>无法读取运行 %1</translation>
    </message>
    <message>
        <location line="+10"/>
        <source>the saved plan does not parse: %1</source>
        <translation>保存的精度方案无法解析：%1</translation>
    </message>
    <message>
        <location line="+8"/>
        <source>Run %1 was read with problems: %2</source>
        <translation>读取运行 %1 时出现问题：%2</translation>
    </message>
    <message>
        <location filename="../widgets/store/history_schema.cpp" line="+76"/>
        <source>it was written by a newer version of Halfscope (history format %1, this version reads format %2)</source>
        <translation>它由更新版本的 Halfscope 写入（历史记录格式 %1，当前版本读取格式 %2）</translation>
    </message>
    <message>
        <location line="+20"/>
        <source>it is an SQLite database of another program (it holds %1 tables but no Halfscope history)</source>
        <translation>它是其他程序的 SQLite 数据库（包含 %1 张表，但没有 Halfscope 历史记录）</translation>
    </message>
    <message>
        <location line="+27"/>
        <source>the tables could not be created: %1</source>
        <translation>无法创建数据表：%1</translation>
    </message>
    <message>
        <location filename="../widgets/store/run_history.cpp" line="-365"/>
        <source>Cannot create the run history folder %1. Check that the path is a folder you may write to.</source>
        <translation>无法创建运行历史记录文件夹 %1。请检查该路径是否为你有写入权限的文件夹。</translation>
    </message>
    <message>
        <location line="+6"/>
        <source>Qt&apos;s SQLite driver (QSQLITE) is not installed, so runs cannot be saved.</source>
        <translation>未安装 Qt 的 SQLite 驱动（QSQLITE），因此无法保存运行。</translation>
    </message>
    <message>
        <location line="+8"/>
        <source>Cannot open the run history database %1: %2</source>
        <translation>无法打开运行历史数据库 %1：%2</translation>
    </message>
    <message>
        <location line="+15"/>
        <source>The run history database %1 stays locked by another program (%2). Close other Halfscope windows and try again.</source>
        <translation>运行历史数据库 %1 一直被其他程序锁定（%2）。请关闭其他 Halfscope 窗口后重试。</translation>
    </message>
    <message>
        <location line="+3"/>
        <source>The run history database %1 is damaged or is not a Halfscope database (%2). Move the file away and Halfscope will start a new, empty history.</source>
        <translation>运行历史数据库 %1 已损坏或不是 Halfscope 数据库（%2）。请将该文件移走，Halfscope 将新建一个空的历史记录。</translation>
    </message>
    <message>
        <location line="+9"/>
        <source>The run history database %1 cannot be used: %2. Move the file away and Halfscope will start a new, empty history.</source>
        <translation>运行历史数据库 %1 无法使用：%2。请将该文件移走，Halfscope 将新建一个空的历史记录。</translation>
    </message>
    <message>
        <location line="+29"/>
        <source>Cannot set the run history&apos;s busy timeout</source>
        <translation>无法设置运行历史记录的忙等待超时</translation>
    </message>
    <message>
        <location line="+24"/>
        <source>%1: the run history database %2 is locked by another program or Halfscope window (%3); nothing was changed. Close it and try again.</source>
        <translation>%1：运行历史数据库 %2 被另一个程序或 Halfscope 窗口锁定（%3）；未做任何更改。请关闭它后重试。</translation>
    </message>
    <message>
        <location line="+3"/>
        <source>%1: %2</source>
        <translation>%1：%2</translation>
    </message>
    <message>
        <location line="+5"/>
        <source>The run history is not open.</source>
        <translation>运行历史记录未打开。</translation>
    </message>
    <message>
        <location line="+5"/>
        <source>Internal error: the run history was used from a thread other than the one that opened it.</source>
        <translation>内部错误：运行历史记录在打开它的线程之外的线程中被使用。</translation>
    </message>
    <message>
        <location line="+12"/>
        <source>Cannot write to the run history</source>
        <translation>无法写入运行历史记录</translation>
    </message>
    <message>
        <location line="+8"/>
        <source>Cannot save to the run history</source>
        <translation>无法保存到运行历史记录</translation>
    </message>
    <message>
        <location line="+32"/>
        <source>Cannot record the new run</source>
        <translation>无法记录新的运行</translation>
    </message>
    <message>
        <location line="+6"/>
        <source>Cannot record the components of the new run</source>
        <translation>无法记录新运行的组件</translation>
    </message>
    <message>
        <location line="+32"/>
        <source>Cannot save step %1</source>
        <translation>无法保存第 %1 步</translation>
    </message>
    <message>
        <location line="+9"/>
        <source>Cannot save the probe records of step %1</source>
        <translation>无法保存第 %1 步的探针记录</translation>
    </message>
    <message>
        <location line="+53"/>
        <source>The preview image of step %1 is inconsistent (%2 x %3 pixels, %4 bytes)</source>
        <translation>第 %1 步的预览图像数据不一致（%2 x %3 像素，%4 字节）</translation>
    </message>
    <message>
        <location line="+10"/>
        <source>Cannot create the image folder %1</source>
        <translation>无法创建图像文件夹 %1</translation>
    </message>
    <message>
        <location line="+44"/>
        <source>Cannot record the preview of step %1</source>
        <translation>无法记录第 %1 步的预览</translation>
    </message>
    <message>
        <location line="+51"/>
        <source>Cannot rename run %1</source>
        <translation>无法重命名运行 %1</translation>
    </message>
    <message>
        <location line="+10"/>
        <source>Run %1 is still running; stop it before deleting it.</source>
        <translation>运行 %1 仍在进行中，请先停止再删除。</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>Run %1 is still running in another Halfscope window; stop it there before deleting it.</source>
        <translation>运行 %1 仍在另一个 Halfscope 窗口中进行；请先在那里停止它，再删除。</translation>
    </message>
    <message>
        <location line="+16"/>
        <location line="+8"/>
        <source>Cannot delete run %1</source>
        <translation>无法删除运行 %1</translation>
    </message>
    <message>
        <location line="+5"/>
        <source>Run %1 was deleted, but some of its image files in %2 could not be removed.</source>
        <translation>运行 %1 已删除，但 %2 中的部分图像文件无法移除。</translation>
    </message>
</context>
<context>
    <name>RunWorker</name>
    <message>
        <location filename="../app/gui/run_worker.cpp" line="+30"/>
        <source>Not enough memory for this model and precision plan (%1). Try a smaller size, or bf16/fp16 for the largest component.</source>
        <translation>内存不足，无法运行此模型和精度方案（%1）。请尝试更小的尺寸，或将最大的组件设为 bf16/fp16。</translation>
    </message>
    <message>
        <location line="+71"/>
        <source>prompt encoded in %1 s</source>
        <translation>提示词编码完成，用时 %1 秒</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>encoding the prompt</source>
        <translation>正在编码提示词</translation>
    </message>
    <message>
        <location line="+3"/>
        <source>image decoded in %1 s</source>
        <translation>图像解码完成，用时 %1 秒</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>decoding the image with the VAE</source>
        <translation>正在用 VAE 解码图像</translation>
    </message>
    <message>
        <location line="+3"/>
        <source>%1: block %2/%3 resident (%4)</source>
        <translation>%1：第 %2/%3 块已载入（%4）</translation>
    </message>
    <message>
        <location line="+8"/>
        <source>Find minimal fix: trial %1 of at most %2 (%3)</source>
        <translation>查找最小修复：第 %1 次试验，最多 %2 次（%3）</translation>
    </message>
    <message>
        <location line="+28"/>
        <source>Loading %1</source>
        <translation>正在加载 %1</translation>
    </message>
    <message>
        <location line="+19"/>
        <source>Loading %1 was cancelled</source>
        <translation>已取消加载 %1</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Could not load %1: %2</source>
        <translation>无法加载 %1：%2</translation>
    </message>
    <message>
        <location line="+94"/>
        <source>decoding step %1 with the VAE</source>
        <translation>正在用 VAE 解码第 %1 步</translation>
    </message>
    <message>
        <location line="+5"/>
        <source>step %1 decoded in %2 s</source>
        <translation>第 %1 步已解码，用时 %2 秒</translation>
    </message>
</context>
<context>
    <name>SeedEdit</name>
    <message>
        <location filename="../widgets/controls/ctl_seed_edit.cpp" line="+38"/>
        <source>Seed of the initial noise, 0 to 18446744073709551615. The same seed gives the same image on any device.</source>
        <translation>初始噪声的种子，范围 0 到 18446744073709551615。相同的种子在任何设备上都会生成相同的图像。</translation>
    </message>
    <message>
        <location line="+3"/>
        <source>Random</source>
        <translation>随机</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Draw a new random seed</source>
        <translation>生成新的随机种子</translation>
    </message>
</context>
<context>
    <name>SettingsDialog</name>
    <message>
        <location filename="../widgets/panels/settings_dialog.cpp" line="+24"/>
        <source>Settings</source>
        <translation>设置</translation>
    </message>
    <message>
        <location line="+6"/>
        <source>System default</source>
        <translation>系统默认</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>System default (%1)</source>
        <translation>系统默认（%1）</translation>
    </message>
    <message>
        <location line="+5"/>
        <source>Simplified Chinese</source>
        <translation>简体中文</translation>
    </message>
    <message>
        <location line="+6"/>
        <source>Restart Halfscope to see the new language everywhere.</source>
        <translation>重启 Halfscope 后，新语言才会在所有位置生效。</translation>
    </message>
    <message>
        <location line="+3"/>
        <source>Emulated (reference: the arithmetic of a GPU)</source>
        <translation>模拟（参考：GPU 的运算方式）</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Native (oneDNN)</source>
        <translation>原生（oneDNN）</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Native where the CPU has bf16 instructions</source>
        <translation>CPU 有 bf16 指令时原生运行</translation>
    </message>
    <message>
        <location line="+8"/>
        <source>Follow the system</source>
        <translation>跟随系统</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Light</source>
        <translation>浅色</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Dark</source>
        <translation>深色</translation>
    </message>
    <message>
        <location line="+3"/>
        <source>Language</source>
        <translation>语言</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>Theme</source>
        <translation>主题</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>bf16 on the CPU</source>
        <translation>CPU 上的 bf16</translation>
    </message>
    <message>
        <location line="+46"/>
        <source>bf16 computes in fp32 with the weights and every layer&apos;s output rounded to bf16: the same numbers on every CPU, at fp32&apos;s speed.</source>
        <translation>bf16 以 fp32 计算，权重和每一层的输出都舍入为 bf16：在任何 CPU 上结果都相同，速度与 fp32 相当。</translation>
    </message>
    <message>
        <location line="+4"/>
        <source>oneDNN&apos;s bf16 kernels on this CPU&apos;s bf16 instructions: faster, and close to the emulated reference.</source>
        <translation>在此 CPU 的 bf16 指令上使用 oneDNN 的 bf16 内核：更快，且结果接近模拟参考。</translation>
    </message>
    <message>
        <location line="+4"/>
        <source>This CPU has no bf16 instructions: native bf16 runs about 13x slower than fp32 and accumulates in bf16 in places.</source>
        <translation>此 CPU 没有 bf16 指令：原生 bf16 比 fp32 慢约 13 倍，并且在某些地方以 bf16 累加。</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>The model is loaded again when this changes.</source>
        <translation>更改此项后将重新加载模型。</translation>
    </message>
</context>
<context>
    <name>StepPlot</name>
    <message>
        <location filename="../widgets/plots/step_plot.cpp" line="+77"/>
        <source>Log scale (|x|)</source>
        <translation>对数刻度（|x|）</translation>
    </message>
    <message>
        <location line="+8"/>
        <source>Latent x (after the step)</source>
        <translation>潜变量 x（该步之后）</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Denoised estimate x0</source>
        <translation>去噪估计 x0</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Velocity v (model output)</source>
        <translation>速度 v（模型输出）</translation>
    </message>
    <message>
        <location line="+4"/>
        <source>Logarithmic scale of magnitudes: shows |max| and std; min, max and mean are signed and are hidden</source>
        <translation>幅值的对数刻度：显示 |max| 和标准差；最小值、最大值和均值带正负号，因此隐藏</translation>
    </message>
    <message>
        <location line="+8"/>
        <source>Tensor:</source>
        <translation>张量：</translation>
    </message>
    <message>
        <location line="+7"/>
        <location line="+299"/>
        <source>min</source>
        <translation>最小值</translation>
    </message>
    <message>
        <location line="-299"/>
        <location line="+299"/>
        <source>max</source>
        <translation>最大值</translation>
    </message>
    <message>
        <location line="-299"/>
        <location line="+299"/>
        <source>|max|</source>
        <translation>|max|</translation>
    </message>
    <message>
        <location line="-299"/>
        <location line="+299"/>
        <source>mean</source>
        <translation>均值</translation>
    </message>
    <message>
        <location line="-298"/>
        <location line="+299"/>
        <source>std</source>
        <translation>标准差</translation>
    </message>
    <message>
        <location line="-299"/>
        <source>NaN</source>
        <translation>NaN</translation>
    </message>
    <message>
        <location line="+0"/>
        <source>Inf</source>
        <translation>Inf</translation>
    </message>
    <message>
        <location line="+7"/>
        <location line="+379"/>
        <source>Show or hide the %1 curve</source>
        <translation>显示或隐藏 %1 曲线</translation>
    </message>
    <message>
        <location line="-360"/>
        <location line="+375"/>
        <source>Point at the plot to read the exact values of a step.</source>
        <translation>将鼠标指向图表，可读取某一步的精确数值。</translation>
    </message>
    <message>
        <location line="-372"/>
        <source>step</source>
        <translation>步</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>value</source>
        <translation>数值</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>count</source>
        <translation>个数</translation>
    </message>
    <message>
        <location line="+32"/>
        <source>fp16 limit %1</source>
        <translation>fp16 上限 %1</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>bf16 limit %1</source>
        <translation>bf16 上限 %1</translation>
    </message>
    <message>
        <location line="+34"/>
        <source>Run 1</source>
        <translation>运行 1</translation>
    </message>
    <message>
        <location line="+32"/>
        <source>Run %1</source>
        <translation>运行 %1</translation>
    </message>
    <message>
        <location line="+168"/>
        <source>NaN count</source>
        <translation>NaN 个数</translation>
    </message>
    <message>
        <location line="+0"/>
        <source>Inf count</source>
        <translation>Inf 个数</translation>
    </message>
    <message>
        <location line="+70"/>
        <source>fp16 limits +/-%1</source>
        <translation>fp16 上下限 +/-%1</translation>
    </message>
    <message>
        <location line="+3"/>
        <source>+fp16 limit %1</source>
        <translation>+fp16 上限 %1</translation>
    </message>
    <message>
        <location filename="../widgets/plots/step_plot_data.cpp" line="+208"/>
        <source>%1 from step %2</source>
        <translation>%1 自第 %2 步起</translation>
    </message>
    <message>
        <location line="-28"/>
        <source>Largest |x| %1 is at or above the fp16 overflow threshold %2: it would be Inf in fp16 (largest finite fp16 value %3).</source>
        <translation>最大 |x| 为 %1，不低于 fp16 溢出阈值 %2：在 fp16 中会变为 Inf（fp16 最大有限值为 %3）。</translation>
    </message>
    <message>
        <location line="+6"/>
        <source>Largest |x| %1 is past the fp16 limit %2 but below %3: it rounds to %2 in fp16 (saturates).</source>
        <translation>最大 |x| 为 %1，超过 fp16 上限 %2 但低于 %3：在 fp16 中会舍入为 %2（饱和）。</translation>
    </message>
    <message>
        <location line="+5"/>
        <source>Largest |x| %1: headroom to the fp16 limit %2x (2^%3).</source>
        <translation>最大 |x| 为 %1：距 fp16 上限还有 %2 倍余量（2^%3）。</translation>
    </message>
    <message>
        <location line="+22"/>
        <source>NaN/Inf in the latent: %1.</source>
        <translation>潜变量中出现 NaN/Inf：%1。</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>fp16 limit off scale (tick Log scale to see it).</source>
        <translation>fp16 上限超出显示范围（勾选“对数刻度”即可看到）。</translation>
    </message>
    <message>
        <location line="+3"/>
        <source>bf16 limit %1 off scale, %2 decades above the data.</source>
        <translation>bf16 上限 %1 超出显示范围，比数据高 %2 个数量级。</translation>
    </message>
    <message>
        <location filename="../widgets/plots/step_plot.cpp" line="+13"/>
        <source>Signed values cannot be drawn on a log scale</source>
        <translation>带符号的数值无法在对数刻度上绘制</translation>
    </message>
    <message>
        <location line="+30"/>
        <source>%1: no data</source>
        <translation>%1：无数据</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>no data</source>
        <translation>无数据</translation>
    </message>
    <message>
        <location line="+7"/>
        <source>no finite value  NaN %1  Inf %2</source>
        <translation>无有限值  NaN %1  Inf %2</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>min %1  max %2  |max| %3  mean %4  std %5  NaN %6  Inf %7</source>
        <translation>最小值 %1  最大值 %2  |max| %3  均值 %4  标准差 %5  NaN %6  Inf %7</translation>
    </message>
    <message>
        <location line="+10"/>
        <source>Step %1 (sigma %2)</source>
        <translation>第 %1 步（sigma %2）</translation>
    </message>
</context>
<context>
    <name>Studio</name>
    <message>
        <location filename="../app/gui/studio.cpp" line="+30"/>
        <location line="+6"/>
        <location filename="../app/gui/studio_records.cpp" line="+111"/>
        <source>stored dtypes</source>
        <translation>存储精度</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>stored</source>
        <extracomment>A module left at the dtype its checkpoint stores, as in &quot;vae stored&quot;.</extracomment>
        <translation>存储精度</translation>
    </message>
    <message>
        <location line="+28"/>
        <source>The run history is not available, runs will not be saved: %1</source>
        <translation>运行历史记录不可用，运行将不会被保存：%1</translation>
    </message>
    <message>
        <location line="+19"/>
        <source>One operation of the engine was still running at close; it ends on its own</source>
        <translation>关闭时引擎仍有一个操作在运行；它会自行结束</translation>
    </message>
    <message>
        <location line="+20"/>
        <location line="+27"/>
        <source>Run %1 was not saved: %2</source>
        <translation>运行 %1 未保存：%2</translation>
    </message>
    <message>
        <location line="-26"/>
        <source>Run %1 is not saved yet: %2 Saving it is tried again every few seconds.</source>
        <translation>运行 %1 尚未保存：%2 每隔几秒会重试保存。</translation>
    </message>
    <message>
        <location line="+15"/>
        <source>Run %1 saved</source>
        <translation>运行 %1 已保存</translation>
    </message>
    <message>
        <location filename="../app/gui/studio_events.cpp" line="+128"/>
        <source>loading failed</source>
        <translation>加载失败</translation>
    </message>
    <message>
        <location line="+8"/>
        <source>Loading %1 was stopped; the model stays %2</source>
        <translation>已停止加载 %1；当前模型仍为 %2</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Loading %1 was stopped; no model is open</source>
        <translation>已停止加载 %1；当前没有打开的模型</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>loading stopped</source>
        <translation>加载已停止</translation>
    </message>
    <message>
        <location line="+41"/>
        <source>%1 (weights %2 + activations %3)</source>
        <translation>%1（权重 %2 + 激活值 %3）</translation>
    </message>
    <message>
        <location line="+3"/>
        <source>%1 of weights (activations not measured on this device)</source>
        <translation>%1 权重（此设备上未测量激活值）</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>Run %1: about %2 and %3 in all, estimated after its second step</source>
        <translation>运行 %1：在第二步之后估算，总计约 %2，占用 %3</translation>
    </message>
    <message>
        <location line="+5"/>
        <source>about %1 in all</source>
        <translation>总计约 %1</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>about %1 a run</source>
        <translation>每次运行约 %1</translation>
    </message>
    <message>
        <location line="+4"/>
        <source>Run %1 took %2; its estimate said about %3 (%4× the time taken)</source>
        <translation>运行 %1 用时 %2；估算约为 %3（实际用时的 %4 倍）</translation>
    </message>
    <message>
        <location line="+66"/>
        <source>First non-finite value: %1 at step %2 (%3, %4)</source>
        <translation>首个非有限值：%1，第 %2 步（%3，%4）</translation>
    </message>
    <message>
        <location line="+12"/>
        <source>done in %1 s: %2</source>
        <extracomment>%1: seconds; %2: the image&apos;s verdict (&quot;ok&quot;, &quot;nan/inf&quot;, &quot;black&quot;, &quot;flat&quot;).</extracomment>
        <translation>完成，用时 %1 秒：%2</translation>
    </message>
    <message>
        <location line="+65"/>
        <source>Decode failed: %1</source>
        <translation>解码失败：%1</translation>
    </message>
    <message>
        <location line="+4"/>
        <source>decoding step %1 stopped</source>
        <translation>第 %1 步的解码已停止</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Decoding step %1 was stopped</source>
        <translation>第 %1 步的解码已被停止</translation>
    </message>
    <message>
        <location line="+5"/>
        <source>Trial %1 (%2): %3 — %4</source>
        <translation>试验 %1（%2）：%3 — %4</translation>
    </message>
    <message>
        <location line="+2"/>
        <location line="+9"/>
        <source>pass</source>
        <translation>通过</translation>
    </message>
    <message>
        <location line="-9"/>
        <location line="+9"/>
        <source>fail</source>
        <translation>失败</translation>
    </message>
    <message>
        <location line="-3"/>
        <source>Remedy %1: %2 — %3</source>
        <translation>补救方案 %1：%2 — %3</translation>
    </message>
    <message>
        <location line="+10"/>
        <source>Find minimal fix ended</source>
        <translation>查找最小修复已结束</translation>
    </message>
    <message>
        <location filename="../app/gui/studio.cpp" line="+35"/>
        <source>Loading %1</source>
        <translation>正在加载 %1</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>Loading %1 with %2</source>
        <translation>正在加载 %1，附带 %2</translation>
    </message>
    <message>
        <location line="+23"/>
        <source>Loading the model files %1</source>
        <translation>正在加载模型文件 %1</translation>
    </message>
    <message>
        <location filename="../app/gui/studio_events.cpp" line="-292"/>
        <source>Halfscope demo model</source>
        <translation>Halfscope 演示模型</translation>
    </message>
    <message>
        <location line="+20"/>
        <source>This model takes no negative prompt: FLUX.1 is guidance-distilled, each step is one pass with the prompt alone and the guidance value is an input of the model.</source>
        <translation>此模型不接受负面提示词：FLUX.1 经过引导蒸馏，每步只用提示词进行一次前向计算，引导系数是模型的一个输入。</translation>
    </message>
    <message>
        <location line="+13"/>
        <source>Loaded %1 for the plan %2: %3</source>
        <translation>已按精度方案 %2 加载 %1：%3</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>Defaults of this model: %1 steps, guidance %2%3</source>
        <translation>此模型的默认设置：%1 步，引导系数 %2%3</translation>
    </message>
    <message>
        <location line="+3"/>
        <source>, no negative prompt</source>
        <translation>，不使用负面提示词</translation>
    </message>
    <message>
        <location line="+3"/>
        <source>Plan %1: every component kept its weights</source>
        <translation>计划 %1：所有组件保留原有权重</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>Plan %1: converted %2 again, kept the other components</source>
        <translation>计划 %1：重新转换了 %2，其余组件保持不变</translation>
    </message>
    <message>
        <location line="+3"/>
        <source>Memory: %1</source>
        <translation>内存：%1</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>model loaded</source>
        <translation>模型已加载</translation>
    </message>
    <message>
        <location filename="../app/gui/studio.cpp" line="+16"/>
        <location line="+123"/>
        <location line="+18"/>
        <source>Open a model first</source>
        <translation>请先打开模型</translation>
    </message>
    <message>
        <location line="-137"/>
        <source>The precision plan does not parse: %1</source>
        <translation>精度方案无法解析：%1</translation>
    </message>
    <message>
        <location line="+30"/>
        <source>Stopping after the current step</source>
        <translation>将在当前步完成后停止</translation>
    </message>
    <message>
        <location line="+0"/>
        <source>Stopping the model load</source>
        <translation>正在停止加载模型</translation>
    </message>
    <message>
        <location filename="../app/gui/studio_events.cpp" line="+39"/>
        <source>Run %1 started: %2, seed %3, %4 steps</source>
        <translation>运行 %1 已开始：%2，种子 %3，%4 步</translation>
    </message>
    <message>
        <location line="+69"/>
        <source>Run %1: %2 The steps are kept and saved when the run ends.</source>
        <translation>运行 %1：%2 各步数据会保留，并在运行结束时保存。</translation>
    </message>
    <message>
        <location line="+6"/>
        <source>Step %1: the latents hold %2 NaN and %3 Inf values</source>
        <translation>第 %1 步：潜变量中有 %2 个 NaN 值和 %3 个 Inf 值</translation>
    </message>
    <message>
        <location line="+17"/>
        <source>Run %1: %2 The previews are kept and saved when the run ends.</source>
        <translation>运行 %1：%2 预览会保留，并在运行结束时保存。</translation>
    </message>
    <message>
        <location line="+17"/>
        <source>stopped</source>
        <translation>已停止</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>done in %1 s</source>
        <translation>完成，用时 %1 秒</translation>
    </message>
    <message>
        <location line="+29"/>
        <location line="+3"/>
        <source>Run %1: %2</source>
        <translation>运行 %1：%2</translation>
    </message>
    <message>
        <location line="+5"/>
        <source>Run %1 stopped after %2 steps</source>
        <translation>运行 %1 在 %2 步后停止</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>Run %1 finished in %2 s: %3 (%4)</source>
        <translation>运行 %1 完成，用时 %2 秒：%3（%4）</translation>
    </message>
    <message>
        <location filename="../app/gui/studio.cpp" line="+24"/>
        <source>Comparing %1</source>
        <translation>正在比较 %1</translation>
    </message>
    <message>
        <location line="+0"/>
        <source> vs </source>
        <translation> 对比 </translation>
    </message>
    <message>
        <location line="+36"/>
        <source>Decoding step %1 with the VAE</source>
        <translation>正在用 VAE 解码第 %1 步</translation>
    </message>
    <message>
        <location line="+11"/>
        <source>run %1 of %2, %3</source>
        <translation>第 %1 次运行（共 %2 次），%3</translation>
    </message>
    <message>
        <location line="+13"/>
        <source>relative L2 distance of the latents, run %1 vs run %2</source>
        <translation>潜变量的相对 L2 距离，运行 %1 对比运行 %2</translation>
    </message>
    <message>
        <location line="+9"/>
        <source>Advice for: %1</source>
        <translation>建议针对：%1</translation>
    </message>
    <message>
        <location line="+8"/>
        <source>Searching for the cheapest fix of %1</source>
        <translation>正在为 %1 搜索代价最低的修复方案</translation>
    </message>
    <message>
        <location line="+18"/>
        <source>Fewer than two passing remedies to compare</source>
        <translation>通过的补救方案少于两个，无法比较</translation>
    </message>
    <message>
        <location line="+14"/>
        <source>Applied plan %1</source>
        <translation>已应用精度方案 %1</translation>
    </message>
    <message>
        <location filename="../app/gui/studio_records.cpp" line="-78"/>
        <source>%1 (run %2)</source>
        <extracomment>A compared run from the history: %1 what its plan changes (&quot;transformer fp16&quot;), %2 its id.</extracomment>
        <translation>%1（运行 %2）</translation>
    </message>
    <message>
        <location line="+53"/>
        <location line="+19"/>
        <source>Could not open run %1: %2</source>
        <translation>无法打开运行 %1：%2</translation>
    </message>
    <message>
        <location line="-13"/>
        <source>Opened run %1 from the history</source>
        <translation>已从历史记录中打开运行 %1</translation>
    </message>
    <message>
        <location line="+57"/>
        <source>reference %1</source>
        <translation>参考 %1</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>failing</source>
        <translation>失败的运行</translation>
    </message>
    <message>
        <location line="+3"/>
        <source>Nothing to report yet: generate an image first.</source>
        <translation>尚无可报告的内容：请先生成一张图像。</translation>
    </message>
    <message>
        <location line="+6"/>
        <source>(empty prompt)</source>
        <translation>（空提示词）</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Halfscope comparison: %1</source>
        <translation>Halfscope 对比：%1</translation>
    </message>
    <message>
        <location line="+0"/>
        <source>Halfscope run: %1</source>
        <translation>Halfscope 运行：%1</translation>
    </message>
    <message>
        <location line="+18"/>
        <source>Report written: %1 (with %2 and the CSV files)</source>
        <translation>报告已写入：%1（附带 %2 和 CSV 文件）</translation>
    </message>
    <message>
        <location filename="../app/gui/studio_forecast.cpp" line="+43"/>
        <source>Next run: about %1, from the times of run %2</source>
        <translation>下一次运行：约 %1，依据运行 %2 的用时</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>Next run: about %1 and %2 of weights (activations not measured on this device), from the times of run %3</source>
        <translation>下一次运行：约 %1，权重 %2（此设备上未测量激活值），依据运行 %3 的用时</translation>
    </message>
    <message>
        <location line="+5"/>
        <source>Next run: about %1 and %2 of memory, from the times of run %3</source>
        <translation>下一次运行：约 %1，内存 %2，依据运行 %3 的用时</translation>
    </message>
    <message>
        <location line="+7"/>
        <source>Next run: its time and memory are estimated after its second step (no run of this model with this plan and guidance has finished yet)</source>
        <translation>下一次运行：其时间和内存在第二步之后估算（此模型在此方案和引导设置下尚无已完成的运行）</translation>
    </message>
    <message>
        <location filename="../app/gui/studio_records.cpp" line="-109"/>
        <source>%1 (%2 NaN, %3 +Inf, %4 -Inf of %5 values)</source>
        <extracomment>The value a failing point held: %1 its kind (+Inf, -Inf, NaN), then the counts.</extracomment>
        <translation>%1（共 %5 个值，NaN %2 个，+Inf %3 个，-Inf %4 个）</translation>
    </message>
</context>
<context>
    <name>ViewFormat</name>
    <message>
        <location filename="../widgets/controls/view_format.cpp" line="+96"/>
        <source>native</source>
        <translation>原生运行</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>emulated</source>
        <translation>模拟运行</translation>
    </message>
    <message>
        <location line="+6"/>
        <source>off</source>
        <translation>关闭</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>module</source>
        <translation>模块</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>layer</source>
        <translation>层</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>op</source>
        <translation>算子</translation>
    </message>
</context>
<context>
    <name>ViewHeatmapGrid</name>
    <message>
        <location filename="../widgets/plots/view_heatmap_grid.cpp" line="+257"/>
        <source>text</source>
        <translation>文本</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>enc.</source>
        <translation>编码</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>VAE</source>
        <translation>VAE</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>decode</source>
        <translation>解码</translation>
    </message>
    <message>
        <location line="+3"/>
        <source>sampling step</source>
        <translation>采样步</translation>
    </message>
    <message>
        <location line="+51"/>
        <source>probe point</source>
        <translation>探针点</translation>
    </message>
    <message>
        <location line="+16"/>
        <source>text encoding</source>
        <translation>文本编码</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>VAE decode</source>
        <translation>VAE 解码</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>step %1</source>
        <translation>第 %1 步</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>%1
%2: no record</source>
        <translation>%1
%2：无记录</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>%1
%2: |max| %3</source>
        <translation>%1
%2：|max| %3</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>, log2(|max|/65504) = %1</source>
        <translation>，log2(|max|/65504) = %1</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>NaN %1, +Inf %2, -Inf %3</source>
        <translation>NaN %1，+Inf %2，-Inf %3</translation>
    </message>
</context>
<context>
    <name>ViewPreviewCanvas</name>
    <message>
        <location filename="../widgets/plots/view_preview_canvas.cpp" line="+136"/>
        <source>VAE</source>
        <translation>VAE</translation>
    </message>
    <message>
        <location line="+21"/>
        <source>no latent-to-RGB map</source>
        <translation>没有潜变量到 RGB 的映射</translation>
    </message>
    <message>
        <location line="+5"/>
        <source>NaN %1</source>
        <translation>NaN %1</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Inf %1</source>
        <translation>Inf %1</translation>
    </message>
    <message>
        <location line="+32"/>
        <source>Step %1</source>
        <translation>第 %1 步</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>no preview yet</source>
        <translation>尚无预览</translation>
    </message>
    <message>
        <location line="+4"/>
        <source>Full VAE decode, %1 x %2</source>
        <translation>完整 VAE 解码，%1 x %2</translation>
    </message>
    <message>
        <location line="+2"/>
        <location line="+10"/>
        <source>%1 NaN and %2 Inf pixels</source>
        <translation>%1 个 NaN 像素和 %2 个 Inf 像素</translation>
    </message>
    <message>
        <location line="-7"/>
        <source>Latent-to-RGB projection, %1 x %2 (enlarged)</source>
        <translation>潜变量到 RGB 的投影，%1 x %2（已放大）</translation>
    </message>
    <message>
        <location line="+4"/>
        <source>Map: %1</source>
        <translation>映射：%1</translation>
    </message>
    <message>
        <location line="+6"/>
        <source>Click to decode this step fully</source>
        <translation>点击以完整解码此步</translation>
    </message>
</context>
<context>
    <name>WelcomeDialog</name>
    <message>
        <location filename="../app/gui/welcome_dialog.cpp" line="+35"/>
        <source>the image is fine</source>
        <translation>图像正常</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>a black image</source>
        <translation>黑图</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>NaN/Inf in the image, black once saved</source>
        <translation>图像中有 NaN/Inf，保存后为黑图</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>a flat image</source>
        <translation>纯色图像</translation>
    </message>
    <message>
        <location line="+13"/>
        <source>Compare bf16 and fp16 on the demo model</source>
        <translation>在演示模型上比较 bf16 与 fp16</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>The result appears here when the comparison ends.</source>
        <translation>比较结束后，结果将显示在这里。</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Show this layer</source>
        <translation>显示此层</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Open the model library</source>
        <translation>打开模型库</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>Welcome to Halfscope</source>
        <translation>欢迎使用 Halfscope</translation>
    </message>
    <message>
        <location line="+7"/>
        <source>The fp16 run in the Run tab, with this layer selected in the layer heatmap</source>
        <translation>在“运行”标签页中打开 fp16 运行，并在层热力图中选中此层</translation>
    </message>
    <message>
        <location line="+7"/>
        <source>&lt;b&gt;Halfscope finds out why a diffusion model gives a black image in half precision.&lt;/b&gt; It runs the model step by step, watches every layer against fp16&apos;s limit of 65504 and names the first layer that overflowed.</source>
        <translation>&lt;b&gt;Halfscope 用于找出扩散模型在半精度下生成黑图的原因。&lt;/b&gt;它逐步运行模型，对照 fp16 的上限 65504 监测每一层，并指出最先溢出的层。</translation>
    </message>
    <message>
        <location line="+5"/>
        <source>&lt;b&gt;1.&lt;/b&gt; See it happen on the small demo model, trained in bf16 (seconds on a CPU):</source>
        <translation>&lt;b&gt;1.&lt;/b&gt; 在以 bf16 训练的小型演示模型上亲眼看看（CPU 上只需几秒）：</translation>
    </message>
    <message>
        <location line="+5"/>
        <source>&lt;b&gt;2.&lt;/b&gt; What the two runs gave:</source>
        <translation>&lt;b&gt;2.&lt;/b&gt; 两次运行的结果：</translation>
    </message>
    <message>
        <location line="+5"/>
        <source>&lt;b&gt;3.&lt;/b&gt; Open the model library to diagnose your own models: it lists those already on disk (Hugging Face cache, ComfyUI, A1111/Forge) and folders you add.</source>
        <translation>&lt;b&gt;3.&lt;/b&gt; 打开模型库来诊断你自己的模型：其中列出磁盘上已有的模型（Hugging Face 缓存、ComfyUI、A1111/Forge）以及你添加的文件夹。</translation>
    </message>
    <message>
        <location line="+5"/>
        <source>Help &gt; Welcome shows this window again.</source>
        <translation>通过“帮助 &gt; 欢迎”可再次打开此窗口。</translation>
    </message>
    <message>
        <location line="+17"/>
        <source>The demo model could not be opened: %1</source>
        <translation>无法打开演示模型：%1</translation>
    </message>
    <message>
        <location line="+26"/>
        <source>Halfscope is busy: start the comparison when the current work ends, or stop it (Run &gt; Stop).</source>
        <translation>Halfscope 正忙：请在当前任务结束后再开始比较，或先停止当前任务（运行 &gt; 停止）。</translation>
    </message>
    <message>
        <location line="+20"/>
        <source>The embedded demo model is missing from this installation: reinstall Halfscope, or open one of your own models from the model library.</source>
        <translation>此安装中缺少内置的演示模型：请重新安装 Halfscope，或从模型库中打开你自己的模型。</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>Opening the demo model...</source>
        <translation>正在打开演示模型…</translation>
    </message>
    <message>
        <location line="+15"/>
        <source>The demo model is not open.</source>
        <translation>演示模型尚未打开。</translation>
    </message>
    <message>
        <location line="+9"/>
        <source>%v of %m steps</source>
        <translation>%v / %m 步</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>Comparing: the bf16 run, then the fp16 run, same prompt and seed...</source>
        <translation>正在比较：先运行 bf16，再运行 fp16，提示词和种子相同…</translation>
    </message>
    <message>
        <location line="+3"/>
        <source>The comparison did not start; the log says why.</source>
        <translation>比较未能开始，原因见日志。</translation>
    </message>
    <message>
        <location line="+6"/>
        <source>The comparison failed: %1</source>
        <translation>比较失败：%1</translation>
    </message>
    <message>
        <location line="+5"/>
        <source>The comparison was stopped before it ended. Click the button above to run it again.</source>
        <translation>比较在结束前被停止。点击上方按钮可重新运行。</translation>
    </message>
    <message>
        <location line="+7"/>
        <source>&lt;b&gt;bf16&lt;/b&gt;: %1.&lt;br&gt;&lt;b&gt;fp16&lt;/b&gt;: %2.</source>
        <translation>&lt;b&gt;bf16&lt;/b&gt;：%1。&lt;br&gt;&lt;b&gt;fp16&lt;/b&gt;：%2。</translation>
    </message>
    <message>
        <location line="+5"/>
        <source>First failing layer in fp16: &lt;b&gt;%1&lt;/b&gt; (component %2, %3), where %4 first appeared.</source>
        <translation>fp16 下最先出错的层：&lt;b&gt;%1&lt;/b&gt;（组件 %2，%3），%4 首次出现在这里。</translation>
    </message>
    <message>
        <location line="+7"/>
        <source>fp16 first failed in the %1 (%2); the layers were not recorded.</source>
        <translation>fp16 最先在 %1 中出错（%2）；未记录各层数据。</translation>
    </message>
    <message>
        <location line="+4"/>
        <source>No layer overflowed in fp16 on this run.</source>
        <translation>本次运行中 fp16 下没有层溢出。</translation>
    </message>
    <message>
        <location line="+23"/>
        <source>The layer heatmap has no cell for this layer.</source>
        <translation>层热力图中没有此层的单元格。</translation>
    </message>
    <message>
        <location line="+35"/>
        <source>The comparison is running</source>
        <translation>比较正在进行</translation>
    </message>
    <message>
        <location line="+3"/>
        <source>Halfscope is busy; this is possible again when it ends</source>
        <translation>Halfscope 正忙，当前任务结束后即可再次使用</translation>
    </message>
</context>
<context>
    <name>main</name>
    <message>
        <location filename="../app/gui/main.cpp" line="+60"/>
        <source>Finds out why a diffusion model gives a black image.</source>
        <translation>找出扩散模型生成黑图的原因。</translation>
    </message>
    <message>
        <location line="+5"/>
        <source>Pipeline folder, or single-file checkpoint, to open (a file set: File &gt; Open model files).</source>
        <translation>要打开的管线文件夹或单文件检查点（一组文件请用“文件 &gt; 打开模型文件”）。</translation>
    </message>
    <message>
        <location line="+4"/>
        <source>Run history folder.</source>
        <translation>运行历史记录文件夹。</translation>
    </message>
    <message>
        <location line="+3"/>
        <source>Generate once the model is loaded.</source>
        <translation>模型加载完成后立即生成一次。</translation>
    </message>
    <message>
        <location line="+5"/>
        <source>Save the window to this PNG and quit.</source>
        <translation>将窗口保存为此 PNG 文件并退出。</translation>
    </message>
    <message>
        <location line="-2"/>
        <source>Compare bf16 and fp16 once the model is loaded.</source>
        <translation>模型加载完成后立即比较 bf16 与 fp16。</translation>
    </message>
    <message>
        <location line="+4"/>
        <source>Prompt to start with.</source>
        <translation>启动时使用的提示词。</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>Seed to start with.</source>
        <translation>启动时使用的种子。</translation>
    </message>
    <message>
        <location line="+3"/>
        <source>Precision plan to start with, e.g. %1.</source>
        <translation>启动时使用的精度方案，例如 %1。</translation>
    </message>
</context>
</TS>
