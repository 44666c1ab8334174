# nccl-tests' bandwidths against the message size: bus bandwidth (algbw times the operation's factor,
# nccl-tests' doc/PERFORMANCE.md) and algorithm bandwidth (size / time), one point per simulated size.
# Set by rocesim before this template: png, dat, title.  Data: size (B), busbw (GB/s), algbw (GB/s).
if (!exists("outname")) outname = png
set terminal pngcairo size 1000,620 noenhanced font 'DejaVu Sans,10'
set output outname
set title title
set xlabel 'message size (bytes, nccl-tests size column)'
set ylabel 'bandwidth (GB/s, 10^9 bytes/s)'
set logscale x 2
set format x '%.0b %BB'
set grid
set key top left box opaque width 2 spacing 1.3
set yrange [0:*]
plot dat using 1:2 with linespoints lw 2 pt 7 lc rgb '#1f77b4' title 'busbw', \
     dat using 1:3 with linespoints lw 2 pt 6 dt 2 lc rgb '#ff7f0e' title 'algbw'
