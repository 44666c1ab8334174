# CDF of FCT slowdown (FCT / ideal FCT): all finished flows, and one curve per
# flow-size bucket when there are many flows of varied sizes.
# Set by rocesim before this template: name, nb, bname[1..nb], logx, xmin, xmax,
# subtitle.  Data: fct_cdf.dat (one block per curve: slowdown, fraction).
if (!exists("outname")) outname = 'fct_cdf.png'
set terminal pngcairo size 1000,620 noenhanced font 'DejaVu Sans,10'
set output outname
# ten colours that stay apart (matplotlib's tab10)
set linetype 1 lc rgb '#1f77b4'
set linetype 2 lc rgb '#ff7f0e'
set linetype 3 lc rgb '#2ca02c'
set linetype 4 lc rgb '#d62728'
set linetype 5 lc rgb '#9467bd'
set linetype 6 lc rgb '#8c564b'
set linetype 7 lc rgb '#e377c2'
set linetype 8 lc rgb '#17becf'
set linetype 9 lc rgb '#bcbd22'
set linetype 10 lc rgb '#7f7f7f'
set linetype cycle 10
set linetype 10 lc rgb '#000000'  # all flows
set title sprintf("FCT slowdown CDF: %s\n%s", name, subtitle)
set xlabel 'slowdown (FCT / ideal FCT, 1 = as fast as on an idle network)'
set ylabel 'fraction of flows with slowdown <= x'
set grid
set key inside right bottom box opaque width 1
if (logx) {
    set logscale x
    set xrange [xmin / 1.2 : xmax * 1.2]
} else {
    pad = (xmax - xmin > 0.02 * xmax ? 0.05 * (xmax - xmin) : 0.02 * xmax)
    set xrange [xmin - pad : xmax + pad]
}
set yrange [0:1.02]
plot for [i=1:nb] 'fct_cdf.dat' index (i-1) using 1:2 with steps lw (i == 1 ? 2.5 : 1.5) lt (i == 1 ? 10 : i - 1) title bname[i]
