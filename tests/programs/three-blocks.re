# L3 of Knee-Deep in C-RASP: three blocks, a+ b+ a+
a+ b+ a+
