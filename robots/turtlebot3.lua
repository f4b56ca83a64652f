-- The reference robot: a TurtleBot3 Burger with its LDS-01, two AMG8833
-- thermal cameras on the Raspberry Pi's I2C bus (AD_SELECT low and high),
-- and the ball launcher on GPIO. `tycho repl --robot robots/turtlebot3.lua`
-- opens these devices through their driver plugins; a device marked
-- optional may be missing (the robot runs without it, and says so).
-- Ports as the udev rules of a stock TurtleBot3 image name them.
return {
  name = "turtlebot3_burger",
  base = { driver = "tb3_base", settings = { port = "/dev/ttyACM0" } },
  lidar = { driver = "lds01", settings = { port = "/dev/ttyUSB0" },
            mount = { x = -0.032, y = 0, yaw = 0 },
            zero_is = "far" }, -- a 0 reading (no echo) is nothing within 3.5 m; "invalid" to ignore it
  cameras = {
    { driver = "amg8833", settings = { bus = "/dev/i2c-1", address = 0x68 },
      yaw = math.rad(20), fov = math.rad(60), optional = true },
    { driver = "amg8833", settings = { bus = "/dev/i2c-1", address = 0x69 },
      yaw = math.rad(-20), fov = math.rad(60), optional = true },
  },
  launcher = { driver = "launcher_gpio",
               settings = { chip = "/dev/gpiochip0", arm_line = 17, esc_line = 18, feeder_line = 27 },
               optional = true },
  limits = { v = 0.22, w = 2.84 }, -- the Burger's maximum speeds
}
